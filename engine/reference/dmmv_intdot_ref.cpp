#include "engine/reference/dmmv_intdot_ref.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "engine/quant/blocks.h"
#include "engine/quant/f16.h"

namespace pb::ref {
namespace {

constexpr uint32_t kBlock = 32;

// Integer sum of a[i] * b[i] for i < n: what the kernels' dotPacked4x8EXT chains compute.
int32_t int_dot(const int8_t* a, const int8_t* b, int n) {
  int32_t sum = 0;
  for (int i = 0; i < n; ++i) sum += int32_t(a[i]) * int32_t(b[i]);
  return sum;
}

// Sum over the row's blocks of column c, one format each.
double row_q8_0(const uint8_t* row, uint32_t cols, const QuantizedXHost& qx, uint32_t c) {
  double sum = 0;
  for (uint32_t b = 0; b < cols / 32; ++b) {
    const auto& blk = reinterpret_cast<const BlockQ8_0*>(row)[b];
    const size_t at = size_t(c) * cols + b * 32;
    const double dx = qx.scales[2 * (at / kBlock)];
    sum += double(half_bits_to_float(blk.d)) * dx * int_dot(blk.qs, &qx.quants[at], 32);
  }
  return sum;
}

double row_q4_k(const uint8_t* row, uint32_t cols, const QuantizedXHost& qx, uint32_t c) {
  double sum = 0;
  for (uint32_t b = 0; b < cols / 256; ++b) {
    const auto& blk = reinterpret_cast<const BlockQ4_K*>(row)[b];
    const double d = half_bits_to_float(blk.d), dmin = half_bits_to_float(blk.dmin);
    for (int j = 0; j < 8; ++j) {  // sub-blocks of 32, one activation block each
      int8_t q[32];
      for (int i = 0; i < 32; ++i) q[i] = static_cast<int8_t>(q4_k_quant(blk, 32 * j + i));
      const size_t at = size_t(c) * cols + b * 256 + 32 * j;
      const ScaleMin sm = q4_k_scale_min(blk.scales, j);
      const double dx = qx.scales[2 * (at / kBlock)], sx = qx.scales[2 * (at / kBlock) + 1];
      sum += d * sm.scale * dx * int_dot(q, &qx.quants[at], 32) - dmin * sm.min * sx;
    }
  }
  return sum;
}

double row_q6_k(const uint8_t* row, uint32_t cols, const QuantizedXHost& qx, uint32_t c) {
  double sum = 0;
  for (uint32_t b = 0; b < cols / 256; ++b) {
    const auto& blk = reinterpret_cast<const BlockQ6_K*>(row)[b];
    const double d = half_bits_to_float(blk.d);
    for (int j = 0; j < 16; ++j) {  // sub-blocks of 16, half an activation block each
      int8_t q[16];
      for (int i = 0; i < 16; ++i) q[i] = static_cast<int8_t>(int(q6_k_quant(blk, 16 * j + i)) - 32);
      const size_t at = size_t(c) * cols + b * 256 + 16 * j;
      const double dx = qx.scales[2 * (at / kBlock)];
      sum += d * blk.scales[j] * dx * int_dot(q, &qx.quants[at], 16);
    }
  }
  return sum;
}

}  // namespace

float quantized_x_scale(float amax) {
  const float d0 = amax * (1.0f / 127.0f);  // one correctly rounded multiply, as on the GPU
  return std::bit_cast<float>((std::bit_cast<uint32_t>(d0) + 0x1fffu) & ~0x1fffu);
}

QuantizedXHost quantize_x(std::span<const float> x, uint32_t cols, uint32_t ncols, uint32_t x_stride) {
  if (cols % kBlock != 0) throw std::invalid_argument("quantize_x: cols must be a multiple of 32");
  QuantizedXHost q{cols, ncols, std::vector<int8_t>(size_t(cols) * ncols), std::vector<float>(size_t(cols) / 16 * ncols)};
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t b = 0; b < cols / kBlock; ++b) {
      const float* v = x.data() + size_t(c) * x_stride + b * kBlock;
      float amax = 0;
      for (uint32_t i = 0; i < kBlock; ++i) amax = std::max(amax, std::fabs(v[i]));
      const float d = quantized_x_scale(amax);
      int sum = 0;
      for (uint32_t i = 0; i < kBlock; ++i) {
        // x / d in float64 is the exact quotient rounded once, and no quotient of two floats
        // lies within 2^-53 of a tie without being one, so this is the exact nearest integer.
        const double r = amax > 0 ? std::nearbyint(double(v[i]) / double(d)) : 0.0;
        const int qi = std::clamp(static_cast<int>(r), -127, 127);
        q.quants[size_t(c) * cols + b * kBlock + i] = static_cast<int8_t>(qi);
        sum += qi;
      }
      const size_t block = size_t(c) * (cols / kBlock) + b;
      q.scales[2 * block] = d;
      q.scales[2 * block + 1] = d * float(sum);  // exact: 11 x 12 significant bits
    }
  }
  return q;
}

void dmmv_intdot(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
                 const QuantizedXHost& qx, std::span<float> y, uint32_t y_stride, bool accumulate) {
  if (qx.cols != cols) throw std::invalid_argument("dmmv_intdot: quantized x of other cols");
  const uint64_t rb = row_bytes(format, cols);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint8_t* row = weights.data() + r * rb;
    for (uint32_t c = 0; c < qx.ncols; ++c) {
      double sum = 0;
      switch (format) {
        case WeightFormat::Q8_0: sum = row_q8_0(row, cols, qx, c); break;
        case WeightFormat::Q4_K: sum = row_q4_k(row, cols, qx, c); break;
        case WeightFormat::Q6_K: sum = row_q6_k(row, cols, qx, c); break;
        default: throw std::invalid_argument("dmmv_intdot: no integer path for this format");
      }
      float& out = y[size_t(c) * y_stride + r];
      out = accumulate ? static_cast<float>(out + sum) : static_cast<float>(sum);
    }
  }
}

double intdot_quantization_bound(std::span<const float> w_row, const QuantizedXHost& qx, uint32_t c) {
  double bound = 0;
  for (uint32_t k = 0; k < qx.cols; ++k) {
    bound += std::fabs(double(w_row[k])) * qx.scales[2 * ((size_t(c) * qx.cols + k) / kBlock)] / 2;
  }
  return bound;
}

}  // namespace pb::ref
