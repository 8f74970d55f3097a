// The work and the minimum memory traffic of one projection through the matmul, so that a
// benchmark reports FLOP/s and GB/s against the device's peaks.
#pragma once

#include <cstdint>

#include "engine/ops/projection.h"
#include "engine/quant/weight_format.h"

namespace pb {

struct MatmulCost {
  double flops = 0;         // 2 * rows * cols * tokens: a multiply and an add per weight and token
  double weight_bytes = 0;  // the weight tensor in its format, read once
  double x_bytes = 0;       // activations read once: 4 * cols * tokens
  double y_bytes = 0;       // results: 4 * rows * tokens written, as much again read when accumulating

  double bytes() const { return weight_bytes + x_bytes + y_bytes; }
  double flops_per_byte() const { return flops / bytes(); }
};

// Compulsory traffic only: the kernels read each weight once per BN tokens and each
// activation once per BM rows, re-reads that mostly hit the cache and are not counted here.
inline MatmulCost matmul_cost(WeightFormat format, uint64_t rows, uint64_t cols, uint64_t tokens,
                              bool accumulate) {
  MatmulCost c;
  c.flops = 2.0 * double(rows) * double(cols) * double(tokens);
  c.weight_bytes = double(tensor_bytes(format, rows, cols));
  c.x_bytes = 4.0 * double(cols) * double(tokens);
  c.y_bytes = 4.0 * double(rows) * double(tokens) * (accumulate ? 2.0 : 1.0);
  return c;
}

inline MatmulCost matmul_cost(const ProjectionProblem& p) {
  return matmul_cost(p.format, p.rows, p.cols, p.ncols, p.accumulate);
}

}  // namespace pb
