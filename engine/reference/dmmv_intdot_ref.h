// CPU reference of the integer-dot DMMV path (kernels/intdot/): the activation quantizer, bit
// for bit as quantize_x.comp computes it, and the projection from quantized activations with
// the kernels' integer sums (exact) and block scales, accumulated in float64.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/quant/weight_format.h"

namespace pb::ref {

// Activations quantized in blocks of 32 (layout of engine/ops/quantize_x_op.h, QuantizedX).
struct QuantizedXHost {
  uint32_t cols = 0;
  uint32_t ncols = 0;
  std::vector<int8_t> quants;  // column c at c * cols
  std::vector<float> scales;   // 2 per block, (d, d * sum of its quants); column c at 2 c cols / 32
};

// The block scale for a block whose largest magnitude is `amax`: amax * float(1/127), rounded
// up to 11 significant bits.
float quantized_x_scale(float amax);

// Columns 0 .. ncols - 1 of x (column c at c * x_stride, cols a multiple of 32).
QuantizedXHost quantize_x(std::span<const float> x, uint32_t cols, uint32_t ncols, uint32_t x_stride);

// y[c * y_stride + r] (+)= sum_k W[r][k] * xhat[c][k] for r < rows, c < qx.ncols, computed as
// the kernels do: integer dot products of the weight and activation quants per block (per
// sub-block of 32 for Q4_K, of 16 for Q6_K), times the weight and activation scales, minus the
// Q4_K min term dmin * m * (d * sum q). Q8_0, Q4_K and Q6_K.
void dmmv_intdot(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
                 const QuantizedXHost& qx, std::span<float> y, uint32_t y_stride, bool accumulate);

// The bound on |integer path - float path| from quantizing x alone, for row r and column c:
// sum_k |W[r][k]| * d(k) / 2 with d(k) the scale of k's block (each |xhat - x| <= d / 2).
double intdot_quantization_bound(std::span<const float> w_row, const QuantizedXHost& qx, uint32_t c);

}  // namespace pb::ref
