#include "engine/ops/ssm_conv_delta_gnorm_op.h"

#include <cstring>

#include "engine/ops/column_span.h"
#include "engine/ops/view_overlap.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr const char* kKernel = "ssm_conv_delta_gnorm";

}  // namespace

std::string ssm_conv_delta_gnorm_refusal(const SsmDeltaProblem& delta, const SsmGnormProblem& gnorm,
                                         const SsmDeltaTuning& tuning) {
  if (find_kernel(kKernel) == nullptr) return std::string("kernel ") + kKernel + " was not compiled in";
  const SsmShape& s = delta.shape;
  if (delta.ncols != 1 || gnorm.ncols != 1) return "the norm inside the recurrence takes one token";
  const bool reads_o = gnorm.o.buffer == delta.o.buffer && gnorm.o.offset == delta.o.offset;
  if (!reads_o || gnorm.heads != s.value_heads || gnorm.d_v != s.d_v) {
    return "the norm must read the recurrence's o, over its value heads";
  }
  const uint32_t threads = ssm_delta_workgroup_size(s, tuning);
  if (s.d_v % kQuantizedXBlock != 0 || s.d_v > threads || threads % kQuantizedXBlock != 0) {
    return "the norm inside the recurrence needs d_v (" + std::to_string(s.d_v) +
           ") a multiple of 32 and at most the workgroup's " + std::to_string(threads) +
           " invocations, a multiple of 32";
  }
  return {};
}

Op ssm_conv_delta_gnorm_op(const SsmDeltaProblem& delta, const SsmConvInput& conv, const SsmGnormProblem& gnorm,
                           const QuantizedX& out, const TensorView& head_arrivals, const SsmDeltaTuning& tuning) {
  const std::string refusal = ssm_conv_delta_gnorm_refusal(delta, gnorm, tuning);
  if (!refusal.empty()) throw UsageError("ssm_conv_delta_gnorm: " + refusal);
  const SsmShape& s = delta.shape;
  const uint32_t n = s.value_dim();
  if (out.cols != n || out.ncols < 1) {
    throw UsageError("ssm_conv_delta_gnorm: the quantized output must hold a column of " + std::to_string(n));
  }
  Op op = ssm_conv_delta_op(delta, conv, tuning);
  const TensorView z = column_span(gnorm.z, 1, n, n, "ssm_conv_delta_gnorm z");
  const TensorView weight = column_span(gnorm.weight, 1, s.d_v, s.d_v, "ssm_conv_delta_gnorm weight");
  const TensorView arrivals =
      column_span(head_arrivals, 1, s.value_heads, s.value_heads, "ssm_conv_delta_gnorm arrivals");
  const TensorView o = column_span(delta.o, 1, n, n, "ssm_conv_delta_gnorm o");
  for (const TensorView* view : {&z, &weight, &arrivals, &out.quants, &out.scales}) {
    if (views_overlap(o, *view)) throw UsageError("ssm_conv_delta_gnorm: o overlaps the norm's inputs or outputs");
  }
  op.kernel = &kernel(kKernel);
  op.bindings[6] = o.read_write();  // the head's last workgroup reads it back
  op.bindings.push_back(z.read());
  op.bindings.push_back(weight.read());
  op.bindings.push_back(out.quants.slice(0, n).write());
  op.bindings.push_back(out.scales.slice(0, uint64_t(n / kQuantizedXBlock) * 8).write());
  op.bindings.push_back(arrivals.read_write());
  SsmConvDeltaGnormPush push{};
  std::memcpy(&push.delta, op.push.bytes.data(), sizeof(SsmDeltaPush));
  push.gnorm_eps = gnorm.eps;
  op.push = PushConstants::of(push);
  op.label = kKernel;
  return op;
}

}  // namespace pb
