// quantize -> dequantize error on random data, per format. The bounds are relative RMS errors
// (sqrt(sum (x - y)^2 / sum x^2)) measured on Gaussian rows, with headroom of about 25% over
// the measured figures printed by the test.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/quant/quantize.h"

namespace pb {
namespace {

enum class Shape { Gaussian, Uniform, HeavyTailed };

std::vector<float> random_row(size_t n, uint32_t seed, Shape shape) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::uniform_real_distribution<float> uniform(-0.05f, 0.05f);
  std::student_t_distribution<float> student(3.0f);
  std::vector<float> x(n);
  for (float& v : x) {
    v = shape == Shape::Gaussian  ? normal(rng)
        : shape == Shape::Uniform ? uniform(rng)
                                  : 0.01f * student(rng);
  }
  return x;
}

double relative_rms_error(WeightFormat format, const std::vector<float>& x) {
  std::vector<uint8_t> q(row_bytes(format, x.size()));
  quantize_row(format, x, q);
  std::vector<float> y(x.size());
  dequantize_row(format, q, y);
  double err = 0, ref = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    ref += double(x[i]) * x[i];
  }
  return std::sqrt(err / ref);
}

struct Bound {
  WeightFormat format;
  double gaussian, uniform, heavy;  // relative RMS error bounds
};

TEST(QuantRoundTrip, RelativeRmsErrorWithinBounds) {
  const Bound bounds[] = {
      {WeightFormat::F32, 0, 0, 0},
      // Measured: f16 0.00021 / 0.00021 / 0.00020, q8_0 0.0054 / 0.0038 / 0.0086,
      // q4_k 0.072 / 0.055 / 0.094, q6_k 0.0174 / 0.0130 / 0.0256.
      {WeightFormat::F16, 3e-4, 3e-4, 3e-4},
      {WeightFormat::Q8_0, 0.007, 0.005, 0.011},
      {WeightFormat::Q4_K, 0.09, 0.07, 0.12},
      {WeightFormat::Q6_K, 0.022, 0.017, 0.032},
  };
  for (const Bound& b : bounds) {
    const double g = relative_rms_error(b.format, random_row(64 * 1024, 1, Shape::Gaussian));
    const double u = relative_rms_error(b.format, random_row(64 * 1024, 2, Shape::Uniform));
    const double h = relative_rms_error(b.format, random_row(64 * 1024, 3, Shape::HeavyTailed));
    std::printf("%-5s relative RMS error: gaussian %.5f  uniform %.5f  heavy-tailed %.5f\n",
                std::string(format_name(b.format)).c_str(), g, u, h);
    EXPECT_LE(g, b.gaussian) << format_name(b.format);
    EXPECT_LE(u, b.uniform) << format_name(b.format);
    EXPECT_LE(h, b.heavy) << format_name(b.format);
  }
}

TEST(QuantRoundTrip, ZerosConstantsAndOutliers) {
  for (WeightFormat f : kAllWeightFormats) {
    std::vector<float> zeros(512, 0.0f), y(512);
    std::vector<uint8_t> q(row_bytes(f, 512));
    quantize_row(f, zeros, q);
    dequantize_row(f, q, y);
    for (float v : y) ASSERT_EQ(v, 0.0f) << format_name(f);

    // One outlier in a block of small values: the outlier survives within a few percent.
    std::vector<float> x = random_row(512, 4, Shape::Gaussian);
    x[37] = 1.0f;
    quantize_row(f, x, q);
    dequantize_row(f, q, y);
    EXPECT_NEAR(y[37], 1.0f, 0.03f) << format_name(f);
    for (float v : y) ASSERT_TRUE(std::isfinite(v)) << format_name(f);
  }
}

TEST(QuantRoundTrip, RequantizingDequantizedWeightsIsNearlyStable) {
  // Values already on a format's grid must come back close (the search may pick a different
  // but equally good grid, so allow a small drift).
  for (WeightFormat f : {WeightFormat::Q8_0, WeightFormat::Q4_K, WeightFormat::Q6_K}) {
    const std::vector<float> x = random_row(4096, 5, Shape::Gaussian);
    std::vector<uint8_t> q(row_bytes(f, x.size()));
    std::vector<float> y(x.size()), z(x.size());
    quantize_row(f, x, q);
    dequantize_row(f, q, y);
    quantize_row(f, y, q);
    dequantize_row(f, q, z);
    double err = 0, ref = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      err += (double(y[i]) - z[i]) * (double(y[i]) - z[i]);
      ref += double(y[i]) * y[i];
    }
    EXPECT_LE(std::sqrt(err / ref), 0.05) << format_name(f);
  }
}

}  // namespace
}  // namespace pb
