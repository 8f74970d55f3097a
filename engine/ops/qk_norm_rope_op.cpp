#include "engine/ops/qk_norm_rope_op.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "engine/ops/column_span.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kMaxHeadDim = 512;  // the kernel: 64 invocations x 4 pairs

void check_shape(const QkNormRopeProblem& p) {
  if (p.head_dim == 0 || p.head_dim % 2 != 0 || p.head_dim > kMaxHeadDim) {
    throw UsageError("qk_norm_rope: head_dim must be even and at most 512; got " +
                     std::to_string(p.head_dim));
  }
  if (p.rope_dims % 2 != 0 || p.rope_dims > p.head_dim) {
    throw UsageError("qk_norm_rope: rope_dims must be even and at most head_dim; got " +
                     std::to_string(p.rope_dims));
  }
  if (!p.qk_norm && p.rope_dims == 0) throw UsageError("qk_norm_rope: neither norm nor rope");
  if (p.n_q_heads == 0 || p.n_k_heads == 0) throw UsageError("qk_norm_rope: zero heads");
  if (p.pos0 + uint64_t(p.ncols) > (uint64_t(1) << 24)) {
    throw UsageError("qk_norm_rope: positions must stay below 2^24 (exact in float)");
  }
}

// theta^(-2 / rope_dims) split into float hi + lo.
std::pair<float, float> freq_ratio(float theta, uint32_t rope_dims) {
  if (rope_dims == 0) return {0.0f, 0.0f};
  const double ratio = std::pow(double(theta), -2.0 / rope_dims);
  const float hi = static_cast<float>(ratio);
  return {hi, static_cast<float>(ratio - hi)};
}

}  // namespace

QkNormRopePush qk_norm_rope_push(const QkNormRopeProblem& p) {
  const auto [ratio_hi, ratio_lo] = freq_ratio(p.theta, p.rope_dims);
  return QkNormRopePush{p.n_q_heads, p.n_k_heads, p.head_dim, p.rope_dims, p.pos0,
                        p.q_stride,  p.k_stride,  ratio_hi,   ratio_lo,    p.eps};
}

Op qk_norm_rope_op(const QkNormRopeProblem& p) {
  check_shape(p);
  const BufferRef q = column_span(p.q, p.ncols, p.q_stride, p.n_q_heads * p.head_dim,
                                  "qk_norm_rope q").read_write();
  const BufferRef k = column_span(p.k, p.ncols, p.k_stride, p.n_k_heads * p.head_dim,
                                  "qk_norm_rope k").read_write();
  BufferRef q_norm{q.buffer, q.offset, std::min<VkDeviceSize>(16, q.size), Access::Read};
  BufferRef k_norm = q_norm;
  if (p.qk_norm || p.q_norm.buffer) {
    q_norm = column_span(p.q_norm, 1, p.head_dim, p.head_dim, "qk_norm_rope q_norm").read();
  }
  if (p.qk_norm || p.k_norm.buffer) {
    k_norm = column_span(p.k_norm, 1, p.head_dim, p.head_dim, "qk_norm_rope k_norm").read();
  }
  Op op;
  op.kernel = &kernel("qk_norm_rope");
  op.spec.set(0, p.qk_norm ? 1 : 0).set(1, p.add_one ? 1 : 0).set(2, static_cast<int32_t>(p.style));
  op.bindings = {q, k, q_norm, k_norm};
  op.push = PushConstants::of(qk_norm_rope_push(p));
  op.groups = {p.n_q_heads + p.n_k_heads, p.ncols, 1};
  op.label = p.qk_norm ? (p.rope_dims ? "qk_norm_rope" : "qk_norm") : "rope";
  return op;
}

}  // namespace pb
