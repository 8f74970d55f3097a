// The int8 inputs of the DMMV projections (dmmv_activations: int8): one quantization per
// distinct projection input, done by the norm, gated unit or decode attention that produces it
// where one does.
#include "engine/forward/forward_context.h"

#include <stdexcept>
#include <string>

#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/embed_norm_op.h"
#include "engine/ops/moe_down_acc_norm_op.h"
#include "engine/ops/quantizing_producer.h"
#include "engine/ops/ssm_conv_delta_gnorm_op.h"
#include "harness/errors.h"

namespace pb {
namespace {

bool overlaps(const BufferRef& ref, const TensorView& view) {
  return ref.buffer == view.buffer && ref.offset < view.offset + view.bytes && view.offset < ref.offset + ref.size;
}

bool overlaps(const TensorView& a, const TensorView& b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

// True when an op at or after `first` writes any byte of `view`.
bool written_since(const std::vector<Op>& ops, size_t first, const TensorView& view) {
  for (size_t i = first; i < ops.size(); ++i) {
    for (const BufferRef& b : ops[i].bindings) {
      if (writes(b.access) && overlaps(b, view)) return true;
    }
  }
  return false;
}

QuantizedX quantized_storage(const Activations& act, uint32_t cols, uint32_t ncols, const BindingLimits& limits) {
  if (act.quantized_x.size() == 0) {
    throw UsageError("dmmv_activations int8: the activations were sized without the quantized-input buffer");
  }
  return quantized_x_in(TensorView::whole(act.quantized_x), cols, ncols, limits);
}

}  // namespace

const QuantizedX& ForwardContext::quantized_input(Emitter& e, const ProjectionProblem& p) const {
  const std::optional<QuantizedInput>& last = e.last_quantized;
  // Reused while neither the floats nor their int8 form were written since (a caller may put
  // back an earlier quantization, as the FFN block does for a shared expert).
  if (last && last->x == p.x && last->cols == p.cols && last->ncols == p.ncols &&
      last->x_stride == p.x_stride && !written_since(e.ops(), last->op_index + 1, p.x) &&
      !written_since(e.ops(), last->op_index + 1, last->quantized.quants) &&
      !written_since(e.ops(), last->op_index + 1, last->quantized.scales)) {
    return last->quantized;
  }
  for (const Emitter::Unwritten& u : e.unwritten) {
    if (overlaps(u.floats, p.x) && !written_since(e.ops(), u.op_index + 1, u.floats)) {
      throw std::logic_error("quantize_x of floats never written (op " + std::to_string(e.ops().size()) +
                             "): their producer at op " + std::to_string(u.op_index) +
                             " wrote only their int8 form, which a reader must take before anything overwrites it");
    }
  }
  const QuantizedX q = quantized_storage(act, p.cols, p.ncols, limits);
  const size_t at = e.ops().size();
  e(quantize_x_ops(p, q, limits), "quantize_x");
  e.last_quantized = QuantizedInput{p.x, p.cols, p.ncols, p.x_stride, at, q};
  return e.last_quantized->quantized;
}

namespace {

// Whether a producer of `n` floats per column can write the int8 input of `consumer` itself:
// the consumer takes int8 inputs of exactly that width (it looks its input up as the
// producer's output, so the remembered quantization is found) in whole blocks.
bool producer_quantizes(const ForwardContext& f, const DeviceTensor& consumer, const Chunk& chunk, Columns cols,
                        uint32_t n) {
  return f.projects_int8(consumer, chunk, cols) && consumer.spec.cols == n && n % kQuantizedXBlock == 0;
}

// Emits a producer's quantizing form and remembers what it quantized: its last op writes x
// (ncols columns of n floats at x_stride) and their int8 form q.
void emit_quantizing(Emitter& e, std::vector<Op> ops, const char* label, const TensorView& x, uint32_t n,
                     uint32_t ncols, uint32_t x_stride, const QuantizedX& q) {
  e(std::move(ops), label);
  e.last_quantized = QuantizedInput{x, n, ncols, x_stride, e.ops().size() - 1, q};
}

// The projection that is the list's last op, where one was remembered.
const ProjectionRecord* last_op_projection(const Emitter& e) {
  const std::optional<ProjectionRecord>& r = e.last_projection;
  return r && r->op_index + 1 == e.ops().size() ? &*r : nullptr;
}

// The decode embedding that is the list's last op, where one was remembered.
const EmbedRecord* last_op_embed(const Emitter& e) {
  const std::optional<EmbedRecord>& m = e.last_embed;
  return m && m->op_index + 1 == e.ops().size() ? &*m : nullptr;
}

// The decode MoE accumulation that is the list's last op, where one was remembered.
const MoeAccRecord* last_op_moe_acc(const Emitter& e) {
  const std::optional<MoeAccRecord>& a = e.last_moe_acc;
  return a && a->op_index + 1 == e.ops().size() ? &*a : nullptr;
}

}  // namespace

bool ForwardContext::defer_norm(Emitter& e, const RmsNormProblem& norm, const Chunk& chunk) const {
  if (options.norm_placement != Placement::Producer || chunk.prefill || norm.ncols != 1 ||
      norm.n % kQuantizedXBlock != 0) {
    return false;
  }
  const QuantizedX out = deferred_norm_in(TensorView::whole(act.deferred_norm), norm.n, norm.eps, limits);
  const NormEpilogue epilogue{norm.weight, out, norm.add_one};
  size_t producer = 0;
  if (const ProjectionRecord* r = last_op_projection(e)) {
    if (!r->problem.accumulate || r->input.rms || r->problem.y != norm.x || r->problem.rows != norm.n) {
      return false;
    }
    producer = r->op_index;
    e.replace(producer, dmmv_intdot_norm_op(r->problem, r->input, limits, epilogue));
  } else if (const EmbedRecord* m = last_op_embed(e)) {  // the first layer's norm
    if (m->problem.x != norm.x || m->problem.hidden != norm.n || !has_embed_norm_kernel()) return false;
    producer = m->op_index;
    e.replace(producer, embed_norm_op(m->problem, epilogue, limits));
  } else if (const MoeAccRecord* a = last_op_moe_acc(e)) {  // the norm after a MoE layer
    if (a->problem.x != norm.x || a->problem.n != norm.n || !has_moe_acc_norm_kernel()) return false;
    if (a->down && a->down->op_index + 1 == a->op_index && act.moe_acc_arrivals.size() > 0 &&
        moe_down_acc_norm_refusal(device, a->down->problem).empty()) {  // down, the accumulation and the norm
      producer = a->down->op_index;
      e.merge_last_into(producer,
                        moe_down_acc_norm_op(a->down->problem, a->down->input, a->routing, a->problem, epilogue,
                                             TensorView::whole(act.moe_acc_arrivals), limits),
                        "expert_down_acc_norm");
    } else {
      producer = a->op_index;
      e.replace(producer, moe_acc_norm_op(a->problem, a->routing, epilogue));
    }
  } else {
    return false;
  }
  // y itself is never written: the readers take the int8 form, found as y's.
  e.last_quantized = QuantizedInput{norm.y, norm.n, 1, norm.y_stride, producer, out};
  e.mark_unwritten(norm.y, producer);
  e.last_projection.reset();
  e.last_embed.reset();
  e.last_moe_acc.reset();
  return true;
}

bool ForwardContext::glu_in_projection(Emitter& e, const GluProblem& glu, const Chunk& chunk) const {
  const ProjectionRecord* r = last_op_projection(e);
  // The stacked projection wrote gate and up side by side: gate at its y, up right after.
  if (options.glu_placement != Placement::Producer || chunk.prefill || glu.ncols != 1 || !r ||
      r->problem.accumulate || r->problem.rows != 2 * glu.n || glu.n % kQuantizedXBlock != 0 ||
      r->problem.y.buffer != glu.gate.buffer || r->problem.y.offset != glu.gate.offset ||
      glu.up.buffer != glu.gate.buffer || glu.up.offset != glu.gate.offset + uint64_t(glu.n) * 4) {
    return false;
  }
  const QuantizedX out = quantized_x_in(act.dense_quantized_act(), glu.n, 1, limits);
  e.replace(r->op_index, dmmv_intdot_glu_op(r->problem, r->input, limits, GluEpilogue{glu.activation, out}));
  // out itself is never written: the down projection takes the int8 form, found as out's.
  e.last_quantized = QuantizedInput{glu.out, glu.n, 1, glu.out_stride, r->op_index, out};
  e.mark_unwritten(glu.out, r->op_index);
  e.last_projection.reset();
  return true;
}

void ForwardContext::norm_for_projection(Emitter& e, const char* label, const Columns2D& x,
                                         const DeviceTensor& weight, const Columns2D& y, Columns cols,
                                         const Chunk& chunk, const DeviceTensor& consumer,
                                         bool only_int8_readers) const {
  const RmsNormProblem norm = rmsnorm_problem(x, weight, y, cols);
  if (!producer_quantizes(*this, consumer, chunk, cols, norm.n)) {
    e(rmsnorm_op(norm), label);
    return;
  }
  if (only_int8_readers && defer_norm(e, norm, chunk)) return;
  const QuantizedX q = quantized_storage(act, norm.n, cols.count, limits);
  emit_quantizing(e, {rmsnorm_quantize_op(norm, q)}, label, norm.y, norm.n, cols.count, y.stride, q);
}

void ForwardContext::glu_for_projection(Emitter& e, const char* label, const GluProblem& glu, Columns cols,
                                        const Chunk& chunk, const DeviceTensor& consumer) const {
  if (!producer_quantizes(*this, consumer, chunk, cols, glu.n)) {
    if (!glu_in_split_reduce(e, glu)) e(glu_op(glu), label);
    return;
  }
  if (glu_in_projection(e, glu, chunk)) return;
  const QuantizedX q = quantized_storage(act, glu.n, cols.count, limits);
  emit_quantizing(e, {glu_quantize_op(glu, q)}, label, glu.out, glu.n, glu.ncols, glu.out_stride, q);
}

void ForwardContext::ssm_gnorm_for_projection(Emitter& e, const char* label, const SsmGnormProblem& gnorm,
                                              Columns cols, const Chunk& chunk, const DeviceTensor& consumer) const {
  const uint32_t n = gnorm.heads * gnorm.d_v;
  if (!producer_quantizes(*this, consumer, chunk, cols, n) || !ssm_gnorm_quantize_refusal(gnorm).empty()) {
    e(ssm_gnorm_op(gnorm), label);
    return;
  }
  const QuantizedX q = quantized_storage(act, n, cols.count, limits);
  emit_quantizing(e, {ssm_gnorm_quantize_op(gnorm, q)}, label, gnorm.y, n, gnorm.ncols, gnorm.y_stride, q);
}

bool ForwardContext::ssm_delta_gnorm_for_projection(Emitter& e, const SsmDeltaProblem& delta,
                                                    const SsmConvInput& conv, const SsmGnormProblem& gnorm,
                                                    Columns cols, const Chunk& chunk,
                                                    const DeviceTensor& consumer) const {
  const uint32_t n = gnorm.heads * gnorm.d_v;
  if (!producer_quantizes(*this, consumer, chunk, cols, n) || !ssm_conv_delta_gnorm_refusal(delta, gnorm).empty()) {
    return false;
  }
  const QuantizedX q = quantized_storage(act, n, 1, limits);
  emit_quantizing(e, {ssm_conv_delta_gnorm_op(delta, conv, gnorm, q, TensorView::whole(act.ssm_head_arrivals))},
                  "ssm_conv_delta_gnorm", gnorm.y, n, 1, gnorm.y_stride, q);
  e.mark_unwritten(gnorm.y, e.ops().size() - 1);  // the gated floats: only their int8 form is written
  return true;
}

bool ForwardContext::decode_attention_for_projection(Emitter& e, const AttentionDecodeProblem& attention,
                                                     uint32_t o_stride, Columns cols, const Chunk& chunk,
                                                     const DeviceTensor& consumer,
                                                     const TensorView& output_gate) const {
  const uint32_t n = attention.shape.n_heads * attention.shape.head_dim;
  // A block of 32 must lie inside one head (the kernels quantize by head); the gate is read
  // from its binding's start.
  const bool gated = output_gate.buffer != nullptr;
  if (!producer_quantizes(*this, consumer, chunk, cols, n) || cols.count != 1 ||
      attention.shape.head_dim % kQuantizedXBlock != 0 || (gated && output_gate.offset % limits.offset_alignment != 0)) {
    e(attention_decode_ops(attention, limits), "attention");
    return false;
  }
  const QuantizedX q = quantized_storage(act, n, 1, limits);
  // The last op (attn_decode, or attn_merge after it) writes o and its int8 form.
  emit_quantizing(e, attention_decode_quantize_ops(attention, q, limits, {}, output_gate), "attention", attention.o,
                  n, 1, o_stride, q);
  return gated;
}

}  // namespace pb
