// CPU references of the Gated DeltaNet kernels (ssm_conv, ssm_delta, ssm_gnorm): float inputs
// and outputs, float64 arithmetic. States are float between calls, as on the GPU, so a chain
// of calls is compared call by call.
#pragma once

#include <cstdint>
#include <span>

#include "engine/ops/ssm_shape.h"

namespace pb::ref {

// y[c][ch] = silu(sum_{i < width} w[ch * width + i] * x_{c - (width - 1) + i}[ch]) for
// c < ncols, inputs before column 0 from state ([channels][width - 1], oldest first), which is
// left holding the last width - 1 inputs.
void ssm_conv(std::span<const float> x, uint32_t channels, uint32_t ncols, uint32_t x_stride,
              std::span<const float> w, uint32_t width, std::span<float> state, std::span<float> y,
              uint32_t y_stride);

// The inputs of one ssm_delta call (layouts as in engine/ops/ssm_delta_op.h).
struct SsmDeltaInputs {
  SsmShape shape;
  uint32_t ncols = 1;
  std::span<const float> qkv;  // column c at c * qkv_stride; q, k, v at the offsets
  uint32_t qkv_stride = 0;
  uint32_t q_offset = 0;
  uint32_t k_offset = 0;
  uint32_t v_offset = 0;
  std::span<const float> b;  // column c at c * b_stride: [value_heads]
  uint32_t b_stride = 0;
  std::span<const float> a;  // column c at c * a_stride: [value_heads]
  uint32_t a_stride = 0;
  std::span<const float> a_log;    // [value_heads]: A_log, or A = -exp(A_log) with a_is_neg_exp
  std::span<const float> dt_bias;  // [value_heads]
  float l2_eps = 1e-6f;
  bool a_is_neg_exp = false;
};

// The delta-rule recurrence over in.ncols tokens: state ([value_heads][d_k][d_v]) read and
// written, o[c][h * d_v + j] at c * o_stride.
void ssm_delta(const SsmDeltaInputs& in, std::span<float> state, std::span<float> o,
               uint32_t o_stride);

// y[c][h] = o[c][h] / sqrt(mean(o[c][h]^2) + eps) * w * silu(z[c][h]) per head of n floats.
void ssm_gnorm(std::span<const float> o, uint32_t o_stride, std::span<const float> z,
               uint32_t z_stride, std::span<const float> w, uint32_t heads, uint32_t n,
               uint32_t ncols, float eps, std::span<float> y, uint32_t y_stride);

}  // namespace pb::ref
