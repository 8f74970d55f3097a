// Shared pieces of the element-wise kernel tests (embed, rmsnorm, qk_norm_rope, kv_write, glu,
// add, argmax, sigmoid_mul): seeded random columns with padding, uploads and downloads of any
// element type, and the check that a kernel left every element outside its columns alone.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/gpu_test.h"

namespace pb::test {

// Padding between and after columns: a value no kernel computes, so a stray write shows.
inline constexpr float kPadding = -12345.0f;

// ncols columns of n values uniform in [lo, hi] at `stride`, padding elsewhere.
inline std::vector<float> random_columns(uint32_t n, uint32_t ncols, uint32_t stride, float lo,
                                         float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(lo, hi);
  std::vector<float> out(size_t(ncols) * stride, kPadding);
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t i = 0; i < n; ++i) out[size_t(c) * stride + i] = uniform(rng);
  }
  return out;
}

template <typename T>
Buffer upload_vector(const std::vector<T>& values, const char* name) {
  Buffer buffer(device(), values.size() * sizeof(T), MemoryUse::Device, name);
  transfer().upload_from<T>(buffer, 0, values);
  return buffer;
}

template <typename T>
std::vector<T> download_vector(const Buffer& buffer, size_t count) {
  return transfer().download_as<T>(buffer, 0, count);
}

// Records a measured worst error as a test property (visible in --gtest_output=xml), so the
// margin under each stated tolerance stays on record.
inline void record_worst(const char* name, double worst) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", worst);
  ::testing::Test::RecordProperty(name, text);
}

inline uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// Elements of column padding (i >= n in each stride) must still hold `before`'s bits.
inline void expect_padding_kept(const std::vector<float>& after, const std::vector<float>& before,
                                uint32_t n, uint32_t stride, const char* what) {
  for (size_t at = 0; at < after.size(); ++at) {
    if (at % stride < n) continue;
    ASSERT_EQ(bits_of(after[at]), bits_of(before[at])) << what << ": padding written at " << at;
  }
}

}  // namespace pb::test
