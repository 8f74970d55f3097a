#include "engine/ops/ssm_delta_op.h"

#include <algorithm>
#include <string>

#include "engine/ops/column_span.h"
#include "engine/ops/view_overlap.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kMaxThreads = 1024;  // the kernel's shared arrays: 18 KiB at this size
constexpr uint32_t kMaxRows = 64;       // floats of S per invocation, in registers

void check_tuning(const SsmDeltaTuning& t) {
  if (t.cols == 0 || t.cols > kMaxThreads || t.rows == 0 || t.rows > kMaxRows) {
    throw UsageError("ssm_delta: tuning cols " + std::to_string(t.cols) + " rows " +
                     std::to_string(t.rows) + " outside 1..1024 and 1..64");
  }
}

// The conv output's columns must hold every part the kernel reads.
TensorView qkv_span(const SsmDeltaProblem& p) {
  const SsmShape& s = p.shape;
  const uint32_t end = std::max({p.q_offset + s.key_dim(), p.k_offset + s.key_dim(),
                                 p.v_offset + s.value_dim()});
  return column_span(p.qkv, p.ncols, p.qkv_stride, end, "ssm_delta qkv");
}

}  // namespace

uint32_t ssm_delta_workgroup_size(const SsmShape& s, const SsmDeltaTuning& tuning) {
  return std::min(tuning.cols, s.d_v) * ceil_div(s.d_k, tuning.rows);
}

Op ssm_delta_op(const SsmDeltaProblem& p, const SsmDeltaTuning& tuning) {
  const SsmShape& s = p.shape;
  check_ssm_shape("ssm_delta", s);
  check_tuning(tuning);
  const uint32_t cols = std::min(tuning.cols, s.d_v);
  const uint32_t split = ceil_div(s.d_k, tuning.rows);
  const uint32_t threads = ssm_delta_workgroup_size(s, tuning);
  if (threads > kMaxThreads) {
    throw UsageError("ssm_delta: " + std::to_string(cols) + " columns x " + std::to_string(split) +
                     " invocations each exceed 1024 per workgroup");
  }
  const uint32_t heads = s.value_heads;
  const uint32_t state_floats = static_cast<uint32_t>(s.delta_state_floats());
  const TensorView qkv = qkv_span(p);
  const TensorView b = column_span(p.b, p.ncols, p.b_stride, heads, "ssm_delta b");
  const TensorView a = column_span(p.a, p.ncols, p.a_stride, heads, "ssm_delta a");
  const TensorView o = column_span(p.o, p.ncols, p.o_stride, s.value_dim(), "ssm_delta o");
  const TensorView state = column_span(p.state, 1, state_floats, state_floats, "ssm_delta state");
  for (const TensorView* input : {&qkv, &b, &a, &state}) {
    if (views_overlap(o, *input)) throw UsageError("ssm_delta: o overlaps an input");
  }
  Op op;
  op.kernel = &kernel("ssm_delta");
  op.spec.set(0, static_cast<int32_t>(s.d_k))
      .set(1, static_cast<int32_t>(cols))
      .set(2, static_cast<int32_t>(split))
      .set(3, static_cast<int32_t>(threads))
      .set(4, p.a_is_neg_exp ? 1 : 0);
  op.bindings = {qkv.read(), b.read(), a.read(),
                 column_span(p.a_log, 1, heads, heads, "ssm_delta a_log").read(),
                 column_span(p.dt_bias, 1, heads, heads, "ssm_delta dt_bias").read(),
                 state.read_write(), o.write()};
  op.push = PushConstants::of(SsmDeltaPush{s.group(), s.d_v, p.ncols, p.qkv_stride, p.q_offset,
                                           p.k_offset, p.v_offset, p.b_stride, p.a_stride,
                                           p.o_stride, p.l2_eps});
  op.groups = {ceil_div(s.d_v, cols), heads, 1};
  op.phase = Phase::SsmDelta;
  op.label = "ssm_delta";
  return op;
}

Op ssm_conv_delta_op(const SsmDeltaProblem& p, const SsmConvInput& conv, const SsmDeltaTuning& tuning) {
  Op op = ssm_delta_op(p, tuning);
  const SsmShape& s = p.shape;
  // The conv's weights and state are indexed by channel: the columns' own order.
  if (p.q_offset != s.q_offset() || p.k_offset != s.k_offset() || p.v_offset != s.v_offset()) {
    throw UsageError("ssm_conv_delta: q, k and v must lie at the shape's offsets (the conv's channel order)");
  }
  if (conv.width < 2 || conv.width > kSsmMaxConvWidth) {
    throw UsageError("ssm_conv_delta: conv width " + std::to_string(conv.width) + " outside 2..8");
  }
  const uint32_t channels = s.channels();
  const TensorView weight =
      column_span(conv.weight, 1, channels * conv.width, channels * conv.width, "ssm_conv_delta weight");
  const uint32_t state_floats = channels * (conv.width - 1);
  const TensorView state = column_span(conv.state, 1, state_floats, state_floats, "ssm_conv_delta conv state");
  const TensorView arrivals =
      column_span(conv.arrivals, 1, s.key_heads, s.key_heads, "ssm_conv_delta arrivals");
  const TensorView o = column_span(p.o, p.ncols, p.o_stride, s.value_dim(), "ssm_delta o");
  for (const TensorView* view : {&weight, &state, &arrivals}) {
    if (views_overlap(o, *view)) throw UsageError("ssm_conv_delta: o overlaps the conv's weight, state or arrivals");
  }
  op.kernel = &kernel("ssm_conv_delta");
  op.spec.set(5, static_cast<int32_t>(conv.width));
  op.bindings.push_back(weight.read());
  op.bindings.push_back(state.read_write());
  op.bindings.push_back(arrivals.read_write());
  op.label = "ssm_conv_delta";
  return op;
}

}  // namespace pb
