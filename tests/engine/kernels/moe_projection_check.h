// The check the expert projections' tests share (moe_dmmv_test, moe_matmul_test): random
// routes over a pool of experts, the unselected experts poisoned with NaN blocks, the routing
// grouped on the device, then the projection's ops; y against the CPU reference within
// rel * sum_k |w_k x_k| + 1e-6, the padding between columns untouched. An integer-dot
// projection's reference reads the activations its quantization stands for (`reference_x`).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/ops/moe_dmmv_op.h"
#include "engine/reference/moe_ref.h"
#include "tests/engine/kernels/moe_fixture.h"

namespace pb::test {

struct MoeProjectionShape {
  WeightFormat format;
  MoeInput input;
  uint32_t experts, top_k, ncols, pool;  // routes drawn from the first `pool` experts
  uint32_t rows, cols;
  uint32_t slice_experts = 0;  // > 0: a binding range of this many experts' weights
};

using MoeOpsBuilder =
    std::function<std::vector<Op>(const MoeDmmvProblem&, const MoeRouting&, const BindingLimits&)>;

// The x the reference reads, from the x the ops read (ncols columns of cols at x_stride).
using MoeReferenceX = std::function<std::vector<float>(const std::vector<float>& x, uint32_t cols, uint32_t ncols,
                                                        uint32_t x_stride)>;

// Runs moe_group then `build`'s ops and checks y; returns the ops `build` made (after the
// check's own assertions) and records the worst error per magnitude.
inline std::vector<Op> check_moe_projection(const MoeProjectionShape& p, const MoeOpsBuilder& build, double rel,
                                            const MoeReferenceX& reference_x = nullptr) {
  std::mt19937 rng(321 + p.ncols + p.rows + static_cast<uint32_t>(p.format));
  const MoeShape shape{p.experts, p.top_k, 0, 0, true};
  const uint32_t n = p.ncols * p.top_k;
  const std::vector<uint32_t> routes = random_routes(p.ncols, p.top_k, p.pool, rng);
  StackedExperts w = random_experts(p.format, p.experts, p.rows, p.cols, 0.05f, rng);
  const std::vector<float> dequantized = w.dequantized;  // the selected experts' values
  EXPECT_GE(poison_unselected(w.bytes, p.experts, routes), p.experts - p.pool);

  const bool per_assignment = p.input == MoeInput::Assignment;
  const uint32_t x_cols = per_assignment ? n : p.ncols;
  const uint32_t x_stride = p.cols + 4, y_stride = p.rows + 3;
  const auto x = random_columns(p.cols, x_cols, x_stride, -1.0f, 1.0f, rng);
  const std::vector<float> ref_x = reference_x ? reference_x(x, p.cols, x_cols, x_stride) : x;
  const std::vector<float> y0(size_t(n) * y_stride, kPadding);

  RoutingBuffers rb = make_routing(shape, p.ncols);
  upload_u32(rb.routing.route_e, routes);
  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "experts"), xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y0, "y");
  BindingLimits limits = BindingLimits::of(device().info());
  if (p.slice_experts) limits.max_range = row_bytes(p.format, p.cols) * p.rows * p.slice_experts;
  const MoeDmmvProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                               shape,    p.rows,               p.cols,               p.ncols,
                               x_stride, y_stride,             p.input};
  const std::vector<Op> built = build(problem, rb.routing, limits);
  std::vector<Op> ops{moe_group_op(shape, p.ncols, rb.routing)};
  ops.insert(ops.end(), built.begin(), built.end());
  run_ops(ops, BarrierPolicy::Ledger);
  const auto gpu = download_floats(yb, y0.size());

  std::vector<float> expected = y0;
  ref::moe_dmmv(p.format, w.bytes, p.rows, p.cols, routes, p.top_k, per_assignment, ref_x, x_stride, expected,
                y_stride);
  expect_padding_kept(gpu, y0, p.rows, y_stride, "y");
  double worst = 0;
  for (uint32_t a = 0; a < n; ++a) {
    const float* xc = ref_x.data() + size_t(per_assignment ? a : a / p.top_k) * x_stride;
    const float* we = dequantized.data() + size_t(routes[a]) * p.rows * p.cols;
    for (uint32_t r = 0; r < p.rows; ++r) {
      double magnitude = 0;
      for (uint32_t k = 0; k < p.cols; ++k) magnitude += std::fabs(double(we[size_t(r) * p.cols + k]) * xc[k]);
      const size_t at = size_t(a) * y_stride + r;
      if (!std::isfinite(gpu[at])) {
        ADD_FAILURE() << "assignment " << a << " row " << r << ": a poisoned expert was read";
        return built;
      }
      if (std::fabs(gpu[at] - expected[at]) > rel * magnitude + 1e-6) {
        ADD_FAILURE() << "assignment " << a << " row " << r << ": " << gpu[at] << " against " << expected[at];
        return built;
      }
      worst = std::max(worst, std::fabs(double(gpu[at]) - expected[at]) / (magnitude + 1e-6));
    }
  }
  record_worst("worst_error_per_magnitude", worst);
  return built;
}

}  // namespace pb::test
