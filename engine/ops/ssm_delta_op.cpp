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

Op ssm_delta_op(const SsmDeltaProblem& p, const SsmDeltaTuning& tuning) {
  const SsmShape& s = p.shape;
  check_ssm_shape("ssm_delta", s);
  check_tuning(tuning);
  const uint32_t cols = std::min(tuning.cols, s.d_v);
  const uint32_t split = ceil_div(s.d_k, tuning.rows);
  if (uint64_t(cols) * split > kMaxThreads) {
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
      .set(3, static_cast<int32_t>(cols * split))
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

}  // namespace pb
