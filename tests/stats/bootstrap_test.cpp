// Bootstrap interval of the ratio of medians: agrees with the textbook bootstrap, deterministic
// per seed, equivariant under scaling, BCa with its fallback, fast, and strict about its input.
#include "harness/stats/bootstrap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "harness/stats/descriptive.h"
#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

std::vector<double> lognormal_samples(Rng& rng, size_t n, double median_value, double cv) {
  std::vector<double> v(n);
  for (double& x : v) x = rng.lognormal(std::log(median_value), lognormal_sigma_for_cv(cv));
  return v;
}

// The textbook bootstrap: copy each resample and take its median; percentile bounds as type-7
// quantiles interpolated in log space (as bootstrap.h documents).
RatioInterval naive_percentile(const std::vector<double>& base, const std::vector<double>& cand,
                               int resamples, uint64_t seed) {
  Rng rng(seed);
  const auto draw_median = [&rng](const std::vector<double>& values) {
    std::vector<double> resample(values.size());
    for (double& x : resample) x = values[rng.uniform_int(values.size())];
    return median(resample);
  };
  std::vector<double> ratios;
  for (int i = 0; i < resamples; ++i) {
    const double b = draw_median(base);
    ratios.push_back(draw_median(cand) / b);
  }
  std::sort(ratios.begin(), ratios.end());
  const auto q = [&](double p) {
    const double pos = p * static_cast<double>(ratios.size() - 1);
    const auto k = static_cast<size_t>(std::floor(pos));
    const double f = pos - static_cast<double>(k);
    if (f == 0.0 || ratios[k] == ratios[k + 1]) return ratios[k];
    return std::exp((1 - f) * std::log(ratios[k]) + f * std::log(ratios[k + 1]));
  };
  return {median(cand) / median(base), q(0.025), q(0.975), BootstrapMethod::Percentile};
}

TEST(Bootstrap, AgreesWithTheTextbookBootstrap) {
  // Both sample the same bootstrap distribution; with 100,000 replicates each the Monte Carlo
  // error of a 2.5% quantile of the ratio is ~2e-4 here.
  Rng rng(11);
  for (size_t n : {5, 6, 30, 31}) {
    const auto base = lognormal_samples(rng, n, 100.0, 0.05);
    const auto cand = lognormal_samples(rng, n + 3, 97.0, 0.05);
    const auto fast = bootstrap_median_ratio(base, cand, {100000, 0.95, 5});
    const auto slow = naive_percentile(base, cand, 100000, 6);
    EXPECT_DOUBLE_EQ(fast.ratio, slow.ratio) << n;
    EXPECT_NEAR(fast.lower, slow.lower, 0.002) << n;
    EXPECT_NEAR(fast.upper, slow.upper, 0.002) << n;
  }
}

TEST(Bootstrap, SameSeedSameInterval) {
  Rng rng(13);
  const auto base = lognormal_samples(rng, 25, 100.0, 0.02);
  const auto cand = lognormal_samples(rng, 25, 101.0, 0.02);
  const auto a = bootstrap_median_ratio(base, cand, {10000, 0.95, 1});
  const auto b = bootstrap_median_ratio(base, cand, {10000, 0.95, 1});
  const auto c = bootstrap_median_ratio(base, cand, {10000, 0.95, 2});
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
  EXPECT_LE(a.lower, a.ratio);
  EXPECT_GE(a.upper, a.ratio);
  // Another seed moves the bounds a little, not a lot.
  EXPECT_NEAR(c.lower, a.lower, 0.003);
  EXPECT_NEAR(c.upper, a.upper, 0.003);
}

TEST(Bootstrap, ScalingTheCandidateScalesTheInterval) {
  Rng rng(14);
  const auto base = lognormal_samples(rng, 20, 100.0, 0.03);
  auto cand = lognormal_samples(rng, 20, 100.0, 0.03);
  const auto a = bootstrap_median_ratio(base, cand, {5000, 0.95, 3});
  for (double& x : cand) x *= 2.0;
  const auto b = bootstrap_median_ratio(base, cand, {5000, 0.95, 3});
  EXPECT_NEAR(b.ratio, 2.0 * a.ratio, 1e-14);
  EXPECT_NEAR(b.lower, 2.0 * a.lower, 1e-13);
  EXPECT_NEAR(b.upper, 2.0 * a.upper, 1e-13);
}

TEST(Bootstrap, ConstantSamplesGiveAPointInterval) {
  const std::vector<double> base(10, 4.0);
  const std::vector<double> cand(12, 5.0);
  for (auto method : {BootstrapMethod::Percentile, BootstrapMethod::Bca}) {
    const auto r = bootstrap_median_ratio(base, cand, {1000, 0.95, 0, method});
    EXPECT_DOUBLE_EQ(r.ratio, 1.25);
    EXPECT_DOUBLE_EQ(r.lower, 1.25);
    EXPECT_DOUBLE_EQ(r.upper, 1.25);
  }
}

TEST(Bootstrap, BcaRunsOrSaysItFellBack) {
  Rng rng(15);
  const auto base = lognormal_samples(rng, 30, 100.0, 0.05);
  const auto cand = lognormal_samples(rng, 30, 95.0, 0.05);
  const auto bca = bootstrap_median_ratio(base, cand, {10000, 0.95, 4, BootstrapMethod::Bca});
  EXPECT_EQ(bca.method, BootstrapMethod::Bca);
  EXPECT_STREQ(to_string(bca.method), "bca");
  EXPECT_LT(bca.lower, bca.ratio);
  EXPECT_GT(bca.upper, bca.ratio);
  EXPECT_LT(std::fabs(bca.bias_correction), 0.5);
  EXPECT_LT(std::fabs(bca.acceleration), 0.2);
  const std::vector<double> two = {1.0, 2.0};
  const auto fallback = bootstrap_median_ratio(two, cand, {1000, 0.95, 4, BootstrapMethod::Bca});
  EXPECT_EQ(fallback.method, BootstrapMethod::Percentile);
}

TEST(Bootstrap, IsFast) {
  Rng rng(16);
  const auto base = lognormal_samples(rng, 30, 100.0, 0.02);
  const auto cand = lognormal_samples(rng, 30, 100.0, 0.02);
  const auto start = std::chrono::steady_clock::now();
  constexpr int kRuns = 20;
  double sink = 0.0;
  for (int i = 0; i < kRuns; ++i) {
    sink += bootstrap_median_ratio(base, cand, {10000, 0.95, static_cast<uint64_t>(i)}).lower;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      kRuns;
  std::printf("bootstrap 30+30 samples, 10000 resamples: %.2f ms\n", ms);
  RecordProperty("bootstrap_ms", std::to_string(ms));
  EXPECT_GT(sink, 0.0);
  // About 0.5 ms in a Release build; the bound only catches a per-replicate sort or copy
  // creeping back (that costs ~10x), with room for sanitizer and Debug builds.
  EXPECT_LT(ms, 100.0);
}

TEST(Bootstrap, RejectsBadInput) {
  const std::vector<double> ok = {1.0, 2.0, 3.0};
  const std::vector<double> empty;
  const std::vector<double> zero = {1.0, 0.0};
  const std::vector<double> inf = {1.0, INFINITY};
  EXPECT_THROW(bootstrap_median_ratio(empty, ok), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(ok, zero), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(inf, ok), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(ok, ok, {99}), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(ok, ok, {1000, 1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
