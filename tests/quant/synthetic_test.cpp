// Synthetic weights: deterministic, different per seed and tensor, never zero, valid blocks,
// and a standard deviation near the requested one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/quant/blocks.h"
#include "engine/quant/f16.h"
#include "engine/quant/quantize.h"
#include "engine/quant/synthetic.h"
#include "harness/errors.h"

namespace pb {
namespace {

std::vector<uint8_t> tensor(WeightFormat f, uint32_t seed, uint32_t id, uint64_t rows,
                            uint64_t cols, float target_std) {
  std::vector<uint8_t> out(tensor_bytes(f, rows, cols));
  generate_synthetic(f, seed, id, rows, cols, target_std, out);
  return out;
}

std::vector<float> dequantize(WeightFormat f, const std::vector<uint8_t>& bytes, size_t n) {
  std::vector<float> y(n);
  dequantize_row(f, bytes, y);  // a row-major tensor is one long row of whole blocks
  return y;
}

struct Moments {
  double mean, std;
};
Moments moments(const std::vector<float>& y) {
  double s = 0, s2 = 0;
  for (float v : y) {
    s += v;
    s2 += double(v) * v;
  }
  const double mean = s / y.size();
  return {mean, std::sqrt(s2 / y.size() - mean * mean)};
}

TEST(QuantSynthetic, DeterministicAndDifferentPerSeedAndTensor) {
  for (WeightFormat f : kAllWeightFormats) {
    const auto a = tensor(f, 7, 3, 4, 512, 0.05f);
    EXPECT_EQ(a, tensor(f, 7, 3, 4, 512, 0.05f)) << format_name(f);
    const auto ya = dequantize(f, a, 4 * 512);
    for (const auto& other : {tensor(f, 8, 3, 4, 512, 0.05f), tensor(f, 7, 4, 4, 512, 0.05f)}) {
      const auto yb = dequantize(f, other, 4 * 512);
      size_t same = 0;
      for (size_t i = 0; i < ya.size(); ++i) same += ya[i] == yb[i];
      EXPECT_LT(double(same) / ya.size(), 0.02) << format_name(f);
    }
  }
}

TEST(QuantSynthetic, SubRangeMatchesTheWholeTensor) {
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t cols = 1024, rows = 3;
    const auto whole = tensor(f, 1, 2, rows, cols, 0.03f);
    const uint64_t blocks = rows * cols / block_weights(f);
    const uint64_t first = blocks / 3, count = blocks / 2;
    std::vector<uint8_t> part(count * block_bytes(f));
    generate_synthetic_blocks(f, 1, 2, first, count, synthetic_scale(f, 0.03f), part);
    EXPECT_EQ(std::memcmp(part.data(), whole.data() + first * block_bytes(f), part.size()), 0)
        << format_name(f);
  }
}

TEST(QuantSynthetic, StandardDeviationNearTarget) {
  // 1/sqrt(cols) for cols from 256 to 21504, and a few fixed values across the f16 normal
  // and subnormal ranges of the block scales.
  const float targets[] = {1 / 16.0f, 1 / 64.0f, 0.0068f, 1 / 146.6f, 0.001f, 0.2f};
  for (WeightFormat f : kAllWeightFormats) {
    for (float t : targets) {
      const uint64_t rows = 16, cols = 4096;
      const auto y = dequantize(f, tensor(f, 11, 5, rows, cols, t), rows * cols);
      const Moments m = moments(y);
      std::printf("%-5s target %.5f: std %.5f (x%.3f), mean %+.6f\n",
                  std::string(format_name(f)).c_str(), t, m.std, m.std / t, m.mean);
      EXPECT_GT(m.std, t / 1.5) << format_name(f) << " target " << t;
      EXPECT_LT(m.std, t * 1.5) << format_name(f) << " target " << t;
      EXPECT_LT(std::fabs(m.mean), 0.05 * t) << format_name(f) << " target " << t;
    }
  }
}

TEST(QuantSynthetic, NeverZeroAndAlwaysFinite) {
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t cols = 512, rows = 8;
    const auto y = dequantize(f, tensor(f, 0, 0, rows, cols, 0.04f), rows * cols);
    size_t zeros = 0;
    for (float v : y) {
      ASSERT_TRUE(std::isfinite(v)) << format_name(f);
      zeros += v == 0.0f;
    }
    EXPECT_LT(zeros, y.size() / 50) << format_name(f);
    // Every block has non-zero weights.
    const uint32_t bw = block_weights(f);
    for (size_t b = 0; bw > 1 && b < y.size() / bw; ++b) {
      bool any = false;
      for (uint32_t i = 0; i < bw; ++i) any |= y[b * bw + i] != 0.0f;
      EXPECT_TRUE(any) << format_name(f) << " block " << b;
    }
  }
}

TEST(QuantSynthetic, BlockScalesArePositiveFiniteHalves) {
  const uint64_t cols = 2048;
  const auto q8 = tensor(WeightFormat::Q8_0, 3, 9, 4, cols, 0.01f);
  const auto q4 = tensor(WeightFormat::Q4_K, 3, 9, 4, cols, 0.01f);
  const auto q6 = tensor(WeightFormat::Q6_K, 3, 9, 4, cols, 0.01f);
  auto check = [](uint16_t h) { return h != 0 && h < 0x7C00; };
  for (size_t b = 0; b < q8.size() / sizeof(BlockQ8_0); ++b) {
    BlockQ8_0 x;
    std::memcpy(&x, q8.data() + b * sizeof x, sizeof x);
    EXPECT_TRUE(check(x.d));
    for (int8_t q : x.qs) EXPECT_NE(q, -128);
  }
  for (size_t b = 0; b < q4.size() / sizeof(BlockQ4_K); ++b) {
    BlockQ4_K x;
    std::memcpy(&x, q4.data() + b * sizeof x, sizeof x);
    EXPECT_TRUE(check(x.d) && check(x.dmin));
    for (int j = 0; j < 8; ++j) {
      const ScaleMin sm = q4_k_scale_min(x.scales, j);
      EXPECT_GE(sm.scale, 32);
      EXPECT_GE(sm.min, 29);
    }
  }
  for (size_t b = 0; b < q6.size() / sizeof(BlockQ6_K); ++b) {
    BlockQ6_K x;
    std::memcpy(&x, q6.data() + b * sizeof x, sizeof x);
    EXPECT_TRUE(check(x.d));
    for (int8_t s : x.scales) EXPECT_GE(std::abs(s), 64);
  }
}

TEST(QuantSynthetic, DenseValuesAreExactDyadics) {
  const auto y32 = dequantize(WeightFormat::F32, tensor(WeightFormat::F32, 2, 2, 4, 256, 0.02f),
                              1024);
  const auto y16 = dequantize(WeightFormat::F16, tensor(WeightFormat::F16, 2, 2, 4, 256, 0.02f),
                              1024);
  // 0.02 / 418 rounds to the step 2^-14; every value is an integer multiple of it below 1024.
  const float step = std::ldexp(1.0f, -14);
  EXPECT_EQ(synthetic_scale(WeightFormat::F32, 0.02f).scale_bits, 0x0400u);
  for (size_t i = 0; i < y32.size(); ++i) {
    const float k = y32[i] / step;
    EXPECT_EQ(k, std::round(k));
    EXPECT_LE(std::fabs(k), 1023.0f);
    EXPECT_EQ(y32[i], y16[i]) << i;  // the same integers, exact in both formats
  }
}

TEST(QuantSynthetic, SmallF32VectorsAreDyadicAroundTheCenter) {
  const auto v = synthetic_f32_values(4, 17, 1000, 1.0f, 0.25f);
  EXPECT_EQ(v, synthetic_f32_values(4, 17, 1000, 1.0f, 0.25f));
  EXPECT_NE(v, synthetic_f32_values(4, 18, 1000, 1.0f, 0.25f));
  double sum = 0;
  bool varied = false;
  for (float x : v) {
    const float k = (x - 1.0f) * 1024;
    EXPECT_EQ(k, std::round(k));
    EXPECT_LE(std::fabs(x - 1.0f), 0.25f);
    varied |= x != v[0];
    sum += x;
  }
  EXPECT_TRUE(varied);
  EXPECT_NEAR(sum / v.size(), 1.0, 0.02);
  const auto flat = synthetic_f32_values(4, 17, 10, 0.5f, 0.0f);
  for (float x : flat) EXPECT_EQ(x, 0.5f);
}

TEST(QuantSynthetic, BadArgumentsAreUsageErrors) {
  std::vector<uint8_t> small(10);
  EXPECT_THROW(generate_synthetic(WeightFormat::Q4_K, 0, 0, 1, 256, 0.1f, small), UsageError);
  std::vector<uint8_t> ok(144);
  EXPECT_THROW(generate_synthetic(WeightFormat::Q4_K, 0, 0, 1, 100, 0.1f, ok), UsageError);
  EXPECT_THROW(synthetic_scale(WeightFormat::Q8_0, 0.0f), UsageError);
  EXPECT_THROW(synthetic_scale(WeightFormat::Q8_0, std::nanf("")), UsageError);
  std::vector<uint8_t> two(4);
  EXPECT_THROW(generate_synthetic_blocks(WeightFormat::F16, 0, 0, (1ull << 32) - 1, 2, {}, two),
               UsageError);
}

}  // namespace
}  // namespace pb
