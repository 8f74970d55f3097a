#include "engine/forward/activations.h"

#include <algorithm>
#include <initializer_list>

#include "engine/model/tensor_plan.h"
#include "engine/ops/argmax_op.h"
#include "engine/ops/moe_down_acc_norm_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "engine/ops/quantize_x_op.h"

namespace pb {
namespace {

// Widths of every activation kind; 0 = not used by this architecture.
struct Widths {
  uint32_t hidden, q, kv, ffn, vocab, experts, expert_ffn, channels, value, value_heads;
  uint32_t q_gate;  // the attention's output gate (Qwen3.5): q wide, or 0
};

Widths widths_of(const ModelConfig& c) {
  const bool ssm = c.full_attention_interval > 0;
  return {c.hidden,
          c.max_q_dim(),
          c.max_kv_dim(),
          std::max(c.ffn_hidden, c.moe.shared_expert_ffn),
          c.vocab,
          c.moe.n_experts,
          c.moe.expert_ffn,
          ssm ? c.ssm.channels() : 0,
          ssm ? c.ssm.value_dim() : 0,
          ssm ? c.ssm.value_heads : 0,
          c.attention_output_gate ? c.max_q_dim() : 0};
}

uint64_t columns_bytes(uint32_t width, uint32_t cols) { return uint64_t(column_stride(width)) * cols * 4; }

// Widths of the stacked buffers: every part padded to 64 floats, each at its widest.
uint32_t qkv_width(const Widths& w) {
  return w.q ? column_stride(w.q) + 2 * column_stride(w.kv) + column_stride(w.q_gate) : 0;
}
// The router's logits and, after them, a shared expert's gate logit.
uint32_t router_width(const ModelConfig& c) {
  return column_stride(c.moe.n_experts) + (c.moe.has_shared_expert() ? 1 : 0);
}
uint32_t gate_up_width(const Widths& w) { return 2 * column_stride(w.ffn); }
uint32_t ssm_in_width(const Widths& w) {
  return column_stride(w.channels) + column_stride(w.value) + 2 * column_stride(w.value_heads);
}

// Parts `widths` side by side in the columns of `b`, each starting on 64 floats: where a stack
// of weights (ModelWeights::stacked) writes them, its members start on as many rows.
static_assert(kStackPartRows == 64, "stack_in's parts start on 64 floats (column_stride)");
std::vector<Columns2D> stack_in(const Columns2D& b, std::initializer_list<uint32_t> widths) {
  std::vector<Columns2D> parts;
  uint32_t first = 0;
  for (uint32_t width : widths) {
    parts.push_back(Columns2D{b.buffer, first, width, b.stride});
    first += column_stride(width);
  }
  return parts;
}

// An int8 input's width rounded up to the largest integer-dot block (Q4_K's and Q6_K's 256).
uint32_t quantized_width(uint32_t width) { return (width + 255) / 256 * 256; }

// The int8 inputs of the widest projection input (the hidden state, the attention output, the
// FFN activation or the SSM output), rounded up as quantized_width does; in a MoE model at least
// the experts' activated states, one column per assignment (the experts' down reads them).
uint64_t quantized_inputs_bytes(const Widths& w, const ActivationSizes& s, uint32_t top_k) {
  if (!s.quantized_inputs) return 0;
  const BindingLimits limits{s.binding_alignment};
  const uint32_t widest = std::max({w.hidden, w.q, w.ffn, w.value});
  const uint64_t dense = quantized_x_bytes(quantized_width(widest), s.max_cols, limits);
  if (w.expert_ffn == 0) return dense;
  return std::max(dense, quantized_x_bytes(quantized_width(w.expert_ffn), s.max_cols * top_k, limits));
}

// The gated units' int8 forms (Activations::dense_quantized_act, experts_quantized_act): one
// column of the FFN width (dense or shared expert), rounded up as above and to a binding
// offset; in a MoE model after it one column of the experts' width per choice of a decode token
// (the experts' gate and up with the SwiGLU write it, moe_dmmv_intdot_glu_op).
uint64_t dense_quantized_act_bytes(const Widths& w, const ActivationSizes& s) {
  if (!s.quantized_inputs || w.ffn == 0) return 0;
  const BindingLimits limits{s.binding_alignment};
  const uint64_t align = std::max<uint64_t>(limits.offset_alignment, 16);
  return (quantized_x_bytes(quantized_width(w.ffn), 1, limits) + align - 1) / align * align;
}

uint64_t quantized_act_bytes(const Widths& w, const ActivationSizes& s, uint32_t top_k) {
  if (!s.quantized_inputs || std::max(w.ffn, w.expert_ffn) == 0) return 0;
  const uint64_t dense = dense_quantized_act_bytes(w, s);
  if (w.expert_ffn == 0) return dense;
  return dense + quantized_x_bytes(quantized_width(w.expert_ffn), top_k, BindingLimits{s.binding_alignment});
}

// A norm's deferred int8 form: one column of the hidden state, rounded up as above.
uint64_t deferred_norm_storage_bytes(const Widths& w, const ActivationSizes& s) {
  if (!s.quantized_inputs) return 0;
  return deferred_norm_bytes(quantized_width(w.hidden), BindingLimits{s.binding_alignment});
}

}  // namespace

Columns2D Activations::columns(Device& device, uint32_t width, uint32_t cols, const char* name) {
  if (width == 0) return {};
  column_buffers_.push_back(std::make_unique<Buffer>(device, columns_bytes(width, cols), MemoryUse::Device, name));
  return {column_buffers_.back().get(), 0, width, column_stride(width)};
}

std::vector<Columns2D> Activations::qkv(const ModelConfig& config, uint32_t layer) const {
  const uint32_t q = config.q_dim(layer), kv = config.kv_dim(layer);
  if (config.attention_output_gate) return stack_in(qkv_columns, {q, kv, kv, q});
  return stack_in(qkv_columns, {q, kv, kv});
}

std::vector<Columns2D> Activations::gate_up(uint32_t width) const { return stack_in(gate_up_columns, {width, width}); }

TensorView Activations::dense_quantized_act() const {
  return TensorView::whole(quantized_act).slice(0, experts_act_offset_);
}

TensorView Activations::experts_quantized_act() const {
  const TensorView all = TensorView::whole(quantized_act);
  return all.slice(experts_act_offset_, all.bytes - experts_act_offset_);
}

uint64_t Activations::bytes_needed(const ModelConfig& c, const ActivationSizes& s) {
  const Widths w = widths_of(c);
  const uint64_t cols = s.max_cols;
  uint64_t total = columns_bytes(w.hidden, cols) * 4 + columns_bytes(w.q, cols) +
                   columns_bytes(qkv_width(w), cols) + columns_bytes(w.ffn, cols) +
                   columns_bytes(gate_up_width(w), cols) +
                   columns_bytes(w.vocab, cols) + s.attention_scratch_bytes + uint64_t(s.max_ctx + 1) * 24 +
                   argmax_partials_bytes(c.vocab, s.max_cols) + s.int8mat_split_bytes + s.matmul_split_bytes +
                   quantized_inputs_bytes(w, s, c.moe.top_k) + deferred_norm_storage_bytes(w, s) +
                   quantized_act_bytes(w, s, c.moe.top_k);
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    if (c.layer_kind(l) == LayerKind::DeltaNet) {
      total += (c.ssm.conv_state_floats() + c.ssm.delta_state_floats()) * 4;
    } else {
      total += uint64_t(2) * c.kv_dim(l) * s.max_ctx * 2;
    }
  }
  if (c.has_moe()) {
    const uint64_t assignments = cols * c.moe.top_k;
    total += columns_bytes(router_width(c), cols) + moe_routing_bytes(c.moe, s.max_cols, s.binding_alignment) +
             columns_bytes(w.expert_ffn, 1) * assignments * 3 + columns_bytes(w.hidden, 1) * assignments +
             (s.quantized_inputs ? moe_down_acc_norm_arrivals_bytes(w.hidden) : 0);
  }
  if (w.channels) {
    total += columns_bytes(ssm_in_width(w), cols) + columns_bytes(w.channels, cols) + columns_bytes(w.value, cols) * 2 +
             uint64_t(c.ssm.key_heads + c.ssm.value_heads) * 4;
  }
  return total;
}

Activations::Activations(Device& device, const ModelConfig& c, const ActivationSizes& s) : sizes_(s) {
  const Widths w = widths_of(c);
  const uint32_t cols = s.max_cols;
  x = columns(device, w.hidden, cols, "x");
  xn = columns(device, w.hidden, cols, "xn");
  tmp = columns(device, w.hidden, cols, "tmp");
  tmp2 = columns(device, w.hidden, cols, "tmp2");
  qkv_columns = columns(device, qkv_width(w), cols, w.q_gate ? "q k v gate" : "q k v");
  attn = columns(device, w.q, cols, "attn");
  gate_up_columns = columns(device, w.ffn ? gate_up_width(w) : 0, cols, "gate up");
  act = columns(device, w.ffn, cols, "act");
  logits = columns(device, w.vocab, cols, "logits");
  tokens = Buffer(device, uint64_t(s.max_ctx + 1) * 4, MemoryUse::Device, "tokens");
  predicted = Buffer(device, uint64_t(s.max_ctx + 1) * 4, MemoryUse::Device, "predicted");
  top2 = Buffer(device, uint64_t(s.max_ctx + 1) * 16, MemoryUse::Device, "top2");
  argmax_partials = Buffer(device, argmax_partials_bytes(c.vocab, cols), MemoryUse::Device, "argmax partials");
  scratch = Buffer(device, std::max<uint64_t>(s.attention_scratch_bytes, 256), MemoryUse::Device,
                   "attention scratch");
  if (s.matmul_split_bytes > 0) {
    matmul_split_sums = Buffer(device, s.matmul_split_bytes, MemoryUse::Device, "matmul split sums");
  }
  if (s.int8mat_split_bytes > 0) {
    int8mat_split_sums = Buffer(device, s.int8mat_split_bytes, MemoryUse::Device, "int8mat split sums");
  }
  if (s.quantized_inputs) {
    quantized_x = Buffer(device, quantized_inputs_bytes(w, s, c.moe.top_k), MemoryUse::Device, "quantized inputs");
    deferred_norm = Buffer(device, deferred_norm_storage_bytes(w, s), MemoryUse::Device, "deferred norm");
    if (w.ffn || w.expert_ffn) {
      quantized_act = Buffer(device, quantized_act_bytes(w, s, c.moe.top_k), MemoryUse::Device, "quantized act");
      experts_act_offset_ = dense_quantized_act_bytes(w, s);
    }
  }
  k_cache.resize(c.n_layers);
  v_cache.resize(c.n_layers);
  conv_state.resize(c.n_layers);
  delta_state.resize(c.n_layers);
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    const std::string n = std::to_string(l);
    if (c.layer_kind(l) == LayerKind::DeltaNet) {
      conv_state[l] = Buffer(device, c.ssm.conv_state_floats() * 4, MemoryUse::Device, "conv state " + n);
      delta_state[l] = Buffer(device, c.ssm.delta_state_floats() * 4, MemoryUse::Device, "delta state " + n);
    } else {
      const uint64_t bytes = uint64_t(c.kv_dim(l)) * s.max_ctx * 2;
      k_cache[l] = Buffer(device, bytes, MemoryUse::Device, "k cache " + n);
      v_cache[l] = Buffer(device, bytes, MemoryUse::Device, "v cache " + n);
    }
  }
  if (c.has_moe()) {
    const uint32_t assignments = cols * c.moe.top_k;
    // The router's logits, then a shared expert's gate logit: where their weights stack, one
    // projection writes both (emit_ffn_block).
    const std::vector<Columns2D> parts =
        stack_in(columns(device, router_width(c), cols, "router logits"), {w.experts, 1});
    router = parts[0];
    if (c.moe.has_shared_expert()) shared_gate = parts[1];
    routing = Buffer(device, moe_routing_bytes(c.moe, cols, s.binding_alignment), MemoryUse::Device, "routing");
    e_gate = columns(device, w.expert_ffn, assignments, "expert gate");
    e_up = columns(device, w.expert_ffn, assignments, "expert up");
    e_act = columns(device, w.expert_ffn, assignments, "expert act");
    e_out = columns(device, w.hidden, assignments, "expert out");
    if (s.quantized_inputs) {
      moe_acc_arrivals =
          Buffer(device, moe_down_acc_norm_arrivals_bytes(w.hidden), MemoryUse::Device, "moe acc arrivals");
    }
  }
  if (w.channels) {
    const Columns2D in = columns(device, ssm_in_width(w), cols, "ssm in");
    const std::vector<Columns2D> parts = stack_in(in, {w.channels, w.value, w.value_heads, w.value_heads});
    conv_in = parts[0];
    ssm_z = parts[1];
    ssm_b = parts[2];
    ssm_a = parts[3];
    conv_out = columns(device, w.channels, cols, "conv out");
    ssm_o = columns(device, w.value, cols, "ssm o");
    ssm_g = columns(device, w.value, cols, "ssm gated");
    ssm_conv_arrivals = Buffer(device, uint64_t(c.ssm.key_heads) * 4, MemoryUse::Device, "ssm conv arrivals");
    ssm_head_arrivals = Buffer(device, uint64_t(c.ssm.value_heads) * 4, MemoryUse::Device, "ssm head arrivals");
  }
}

}  // namespace pb
