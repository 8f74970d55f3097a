#include "engine/forward/forward_context.h"

#include <stdexcept>
#include <string>

#include "engine/forward/chunk_experts_int8.h"
#include "engine/ops/add_op.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/dmmv_op.h"
#include "engine/ops/matmul_op.h"
#include "engine/quant/integer_dot.h"

namespace pb {

void Emitter::operator()(Op op, const char* label) {
  op.phase = phase_;
  op.layer = layer_;
  op.token = token_;
  op.label = label;
  out_.push_back(std::move(op));
}

void Emitter::operator()(std::vector<Op> ops, const char* label) {
  for (auto& op : ops) (*this)(std::move(op), label);
}

void Emitter::mark_unwritten(const TensorView& floats, size_t op_index) {
  // A later producer of the same floats supersedes an earlier one: whatever was written since
  // the later was written since the earlier too, so the list stays as short as its views.
  std::erase_if(unwritten, [&](const Unwritten& u) {
    return u.floats.buffer == floats.buffer && u.floats.offset == floats.offset && u.floats.bytes == floats.bytes;
  });
  unwritten.push_back({floats, op_index});
}

void Emitter::replace(size_t index, Op op) {
  const Op& old = out_.at(index);
  op.phase = old.phase;
  op.layer = old.layer;
  op.token = old.token;
  op.label = old.label;
  out_[index] = std::move(op);
}

void Emitter::merge_last_into(size_t index, Op op, const char* label) {
  if (index + 1 >= out_.size()) {
    throw std::logic_error("Emitter::merge_last_into: op " + std::to_string(index) + " is the last");
  }
  replace(index, std::move(op));
  out_.at(index).label = label;
  out_.pop_back();
}

TensorView ForwardContext::columns(const Columns2D& b, uint32_t width, Columns cols) {
  const uint64_t stride = b.stride * 4ull;
  return TensorView{b.buffer, b.first * 4ull + cols.first * stride, (cols.count - 1) * stride + width * 4ull};
}

TensorView ForwardContext::columns(const Columns2D& b, Columns cols) { return columns(b, b.width, cols); }

void ForwardContext::project(Emitter& e, const char* label, const DeviceTensor& w, const Columns2D& x,
                             const Columns2D& y, Columns cols, bool accumulate, const Chunk& chunk) const {
  const auto rows = static_cast<uint32_t>(w.spec.rows);
  const auto in = static_cast<uint32_t>(w.spec.cols);
  const ProjectionProblem p{w.spec.format, w.view(), columns(x, in, cols), columns(y, rows, cols),
                            rows, in, cols.count, x.stride, y.stride, accumulate};
  const bool matmul = chunk.prefill && options.prefill == PrefillStrategy::Matmul && cols.count > 1;
  if (matmul) {
    std::optional<SplitSlots> split;
    e(matmul_ops(p, limits, choose_matmul(device, w.spec.format, options.allow_coopmat, cols.count),
                 TensorView::whole(act.matmul_split_sums), &split),
      label);
    if (split) e.last_split = SplitRecord{p, *split, e.ops().size() - 1};
  } else if (projects_int8(w, chunk, cols)) {
    const QuantizedX input = quantized_input(e, p);
    std::vector<Op> ops = dmmv_intdot_ops(p, input, limits, dmmv_intdot_choice(device, w.spec.format, options.allow_coopmat),
                                          TensorView::whole(act.int8mat_split_sums));
    const bool single = ops.size() == 1 && cols.count == 1 && !chunk.prefill;
    e(std::move(ops), label);
    if (single) e.last_projection = ProjectionRecord{p, input, e.ops().size() - 1};
  } else {
    e(dmmv_ops(p, options.num_cols, limits), label);
  }
}

namespace {

// The window of parts [0, n) that `stack` writes: where each part lies as far from the first,
// in floats, as its member's rows from the stack's first row (stored back to back, or on
// kStackPartRows rows as the parts start on 64 floats), in one buffer with one stride.
std::optional<Columns2D> stack_output(const DeviceTensor& stack, std::span<const DeviceTensor* const> members,
                                      const std::vector<Columns2D>& parts) {
  const uint64_t row = row_bytes(stack.spec.format, stack.spec.cols);
  for (size_t m = 0; m < members.size(); ++m) {
    const uint64_t first_row = (members[m]->offset - stack.offset) / row;
    if (parts[m].buffer != parts[0].buffer || parts[m].stride != parts[0].stride ||
        parts[m].first - parts[0].first != first_row || parts[m].width != members[m]->spec.rows) {
      return std::nullopt;
    }
  }
  return Columns2D{parts[0].buffer, parts[0].first, static_cast<uint32_t>(stack.spec.rows), parts[0].stride};
}

}  // namespace

void ForwardContext::project_stack(Emitter& e, std::span<const StackMember> members, int32_t layer,
                                   const Columns2D& x, const std::vector<Columns2D>& parts, Columns cols,
                                   const Chunk& chunk) const {
  std::vector<TensorRole> roles;
  for (const StackMember& m : members) roles.push_back(m.role);
  size_t done = 0;
  for (size_t n = members.size(); n >= 2 && done == 0; --n) {
    const std::optional<DeviceTensor> stack = weights.stacked(std::span(roles).first(n), layer);
    if (!stack) continue;
    std::vector<const DeviceTensor*> stacked;
    for (size_t m = 0; m < n; ++m) stacked.push_back(&tensor(members[m].role, layer));
    if (const std::optional<Columns2D> out = stack_output(*stack, stacked, parts)) {
      project(e, members[n - 1].stack_label, *stack, x, *out, cols, false, chunk);
      done = n;
    }
  }
  for (size_t m = done; m < members.size(); ++m) {
    project(e, members[m].label, tensor(members[m].role, layer), x, parts[m], cols, false, chunk);
  }
}

bool ForwardContext::projects_int8(const DeviceTensor& w, const Chunk& chunk, Columns cols) const {
  if (options.dmmv_activations != DmmvActivations::Int8 ||
      !has_integer_dot_path(w.spec.format, static_cast<uint32_t>(w.spec.cols))) {
    return false;
  }
  // A matmul chunk keeps its projections on the matmul's float inputs, but for experts that
  // serve few assignments (chunk_experts_int8.h).
  const bool matmul = chunk.prefill && options.prefill == PrefillStrategy::Matmul && cols.count > 1;
  return !matmul || chunk_experts_serve_few(config().moe, w.spec.role, cols.count);
}

RmsNormProblem ForwardContext::rmsnorm_problem(const Columns2D& x, const DeviceTensor& weight, const Columns2D& y,
                                               Columns cols) const {
  const ModelConfig& c = config();
  return RmsNormProblem{columns(x, cols), weight.view(), columns(y, x.width, cols), x.width, cols.count,
                        x.stride, y.stride, c.rms_eps, c.norm_add_one};
}

void ForwardContext::post_norm_add(Emitter& e, TensorRole norm, int32_t layer, Columns cols) const {
  e(rmsnorm_op(rmsnorm_problem(act.tmp, tensor(norm, layer), act.tmp2, cols)), "post_norm");
  e(add_in_place_op(AddInPlaceProblem{columns(act.x, cols), columns(act.tmp2, cols), config().hidden, cols.count,
                                      act.x.stride, act.tmp2.stride}),
    "residual_add");
}

}  // namespace pb
