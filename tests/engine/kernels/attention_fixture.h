// Shared inputs and checks of the attention kernel tests: random q and f16 K/V caches whose
// rows outside the positions an op may read are NaN (so a stray read poisons the output), the
// device copies, and the comparison against the float64 reference.
//
// Tolerance: |gpu - ref| <= kAttentionTolerance = 1e-5 absolute on outputs of magnitude <= 1
// (V in [-1, 1], scores of standard deviation ~1.5, contexts up to 2000). The GPU accumulates
// in float32 with exp2 of prescaled scores, the reference in float64 from the same f16 K/V, so
// only float32 rounding differs: the worst measured on lavapipe was 5.7e-7 (each test prints
// its own), which leaves a factor of more than 10.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/ops/attention_shape.h"
#include "engine/quant/f16.h"
#include "engine/reference/attention_ref.h"
#include "tests/support/gpu_test.h"

namespace pb::test {

inline constexpr double kAttentionTolerance = 1e-5;
inline constexpr uint16_t kHalfNaN = 0x7e00;

inline AttentionShape attention_shape(uint32_t n_heads, uint32_t n_kv_heads, uint32_t head_dim,
                                      uint32_t max_ctx, uint32_t window) {
  return {n_heads, n_kv_heads, head_dim, max_ctx, window, 1.0f / std::sqrt(float(head_dim))};
}

inline ref::AttentionDims reference_dims(const AttentionShape& s) {
  return {s.n_heads, s.n_kv_heads, s.head_dim, s.max_ctx, s.window, s.scale};
}

struct AttentionData {
  std::vector<float> q;        // [n_tokens][q_stride]
  std::vector<uint16_t> k, v;  // [n_kv_heads][max_ctx][head_dim] f16 bits
};

// q ~ N(0, 1.5^2) (scores of standard deviation ~1.5: peaked but not one-hot), K ~ N(0, 1),
// V ~ U(-1, 1); cache positions outside [lo, hi] are NaN.
inline AttentionData random_attention(const AttentionShape& s, uint32_t n_tokens, uint32_t q_stride,
                                      uint32_t lo, uint32_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  AttentionData data;
  data.q.resize(size_t(n_tokens) * q_stride);
  for (auto& x : data.q) x = 1.5f * normal(rng);
  const size_t cache = size_t(s.n_kv_heads) * s.max_ctx * s.head_dim;
  data.k.resize(cache);
  data.v.resize(cache);
  for (size_t i = 0; i < cache; ++i) {
    const uint32_t pos = static_cast<uint32_t>((i / s.head_dim) % s.max_ctx);
    const bool readable = pos >= lo && pos <= hi;
    data.k[i] = readable ? float_to_half_bits(normal(rng)) : kHalfNaN;
    data.v[i] = readable ? float_to_half_bits(uniform(rng)) : kHalfNaN;
  }
  return data;
}

inline Buffer upload_halves(const std::vector<uint16_t>& halves, const char* name) {
  Buffer buffer(device(), halves.size() * 2, MemoryUse::Device, name);
  transfer().upload_from<uint16_t>(buffer, 0, halves);
  return buffer;
}

struct DeviceCache {
  Buffer k, v;
  KvCacheView view() const { return {TensorView::whole(k), TensorView::whole(v)}; }
};

inline DeviceCache upload_cache(const AttentionData& data) {
  return {upload_halves(data.k, "k_cache"), upload_halves(data.v, "v_cache")};
}

// Largest |gpu - expected| over the n_tokens x width outputs at `stride`; fails the test when a
// value is not finite or padding between them (and `lead` floats before them) changed.
inline double attention_error(const std::vector<float>& gpu, const std::vector<float>& expected,
                              const std::vector<float>& initial, uint32_t lead, uint32_t n_tokens,
                              uint32_t width, uint32_t stride) {
  double worst = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    const bool output = i >= lead && (i - lead) / stride < n_tokens && (i - lead) % stride < width;
    if (!output) {
      EXPECT_EQ(gpu[i], initial[i]) << "padding written at float " << i;
      continue;
    }
    EXPECT_TRUE(std::isfinite(gpu[i])) << "output " << i - lead << " is " << gpu[i];
    worst = std::max(worst, std::fabs(double(gpu[i]) - double(expected[i])));
  }
  return worst;
}

}  // namespace pb::test
