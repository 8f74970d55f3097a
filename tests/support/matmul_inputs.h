// The projection tests' random problem of `tokens` activation columns (the tiled matmul's and
// its K split's): weights with their dequantized values, x and y at padded strides, the run of
// a projection's ops on device copies, and the check of every output against the reference.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/projection.h"
#include "engine/quant/weight_format.h"
#include "tests/support/gpu_test.h"

namespace pb::test {

struct MatmulInputs {
  std::vector<uint8_t> weights;
  std::vector<float> dequantized;  // rows × cols
  std::vector<float> x, y;         // x_stride × tokens, y_stride × tokens
  uint32_t x_stride, y_stride;
};

// Weights from random_matrix, then x and y uniform in [-1, 1), from one generator seeded `seed`;
// padded strides, so that columns are not back to back.
MatmulInputs random_matmul_inputs(WeightFormat format, uint32_t rows, uint32_t cols, uint32_t tokens,
                                  uint32_t seed);

// y after running the ops `make_ops` builds for the problem, on device copies of the inputs.
template <typename MakeOps>
std::vector<float> run_on_gpu(const MatmulInputs& in, WeightFormat format, uint32_t rows, uint32_t cols,
                              uint32_t tokens, bool accumulate, MakeOps make_ops) {
  Buffer wb = upload_weights(format, cols, in.weights, "w");
  Buffer xb = upload_floats(in.x, "x");
  Buffer yb = upload_floats(in.y, "y");
  const ProjectionProblem problem{format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                                  rows, cols, tokens, in.x_stride, in.y_stride, accumulate};
  const std::vector<Op> ops = make_ops(problem);
  run_ops(ops, BarrierPolicy::Ledger);
  return download_floats(yb, in.y.size());
}

// Checks every output element against `expected` within rel * m + abs, m = sum_k |w_k x_k| of
// that element, and that the padding between columns was never written.
void expect_matmul_close(const MatmulInputs& in, uint32_t rows, uint32_t cols, uint32_t tokens,
                         const std::vector<float>& got, const std::vector<float>& expected, double rel, double abs);

}  // namespace pb::test
