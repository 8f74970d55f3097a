// The per-metric A/B verdict on constructed data: each verdict, the orientation of times versus
// rates, the rank-test requirement, and too few samples.
#include "harness/stats/ab_verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

std::vector<double> noisy(size_t n, double median_value, double cv, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = rng.lognormal(std::log(median_value), lognormal_sigma_for_cv(cv));
  return v;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(AbVerdict, FasterTimeIsAWin) {
  const auto base = noisy(20, 100.0, 0.01, 1);
  const auto cand = noisy(20, 95.0, 0.01, 2);
  const auto r = ab_verdict(base, cand);  // times: lower is better
  EXPECT_EQ(r.verdict, Verdict::Win) << r.reason;
  EXPECT_NEAR(r.improvement, 100.0 / 95.0 - 1.0, 0.01);
  ASSERT_TRUE(r.improvement_ci);
  EXPECT_GT(r.improvement_ci->lower, 0.01);
  // The improvement interval of a time is the reciprocal of the ratio interval.
  EXPECT_DOUBLE_EQ(r.improvement_ci->lower, 1.0 / r.ratio_ci->upper - 1.0);
  EXPECT_DOUBLE_EQ(r.improvement_ci->upper, 1.0 / r.ratio_ci->lower - 1.0);
  EXPECT_LT(r.ratio, 1.0);
  EXPECT_LT(r.rank_test->p_value, 1e-6);
  EXPECT_TRUE(starts_with(r.reason, "win: ")) << r.reason;
  EXPECT_FALSE(r.more);
  EXPECT_STREQ(to_string(r.verdict), "win");
}

TEST(AbVerdict, SlowerTimeIsARegressionAndHigherRateIsAWin) {
  const auto low = noisy(20, 100.0, 0.01, 3);
  const auto high = noisy(20, 105.0, 0.01, 4);
  EXPECT_EQ(ab_verdict(low, high).verdict, Verdict::Regression);
  AbOptions rate;
  rate.higher_is_better = true;
  const auto r = ab_verdict(low, high, rate);
  EXPECT_EQ(r.verdict, Verdict::Win) << r.reason;
  EXPECT_NEAR(r.improvement, r.ratio - 1.0, 1e-15);
  EXPECT_EQ(ab_verdict(high, low, rate).verdict, Verdict::Regression);
  EXPECT_STREQ(to_string(Verdict::Regression), "regression");
}

TEST(AbVerdict, QuietEqualRunsAreFlat) {
  const auto base = noisy(30, 100.0, 0.002, 5);
  const auto cand = noisy(30, 100.0, 0.002, 6);
  const auto r = ab_verdict(base, cand);
  EXPECT_EQ(r.verdict, Verdict::Flat) << r.reason;
  EXPECT_GE(r.improvement_ci->lower, -0.01);
  EXPECT_LE(r.improvement_ci->upper, 0.01);
  EXPECT_TRUE(starts_with(r.reason, "flat: ")) << r.reason;
  EXPECT_STREQ(to_string(r.verdict), "flat");
}

TEST(AbVerdict, NoisyRunsAreInconclusiveWithAnEstimate) {
  const auto base = noisy(10, 100.0, 0.03, 7);
  const auto cand = noisy(10, 100.0, 0.03, 8);
  const auto r = ab_verdict(base, cand);
  EXPECT_EQ(r.verdict, Verdict::Inconclusive) << r.reason;
  ASSERT_TRUE(r.more);
  EXPECT_GT(r.more->per_side, 10);
  EXPECT_NE(r.reason.find("repetitions per side"), std::string::npos) << r.reason;
  EXPECT_STREQ(to_string(r.verdict), "inconclusive");
}

TEST(AbVerdict, AClearDifferenceWithoutASignificantRankTestIsNotAWin) {
  // Three samples per side cannot reach p < 0.05 with Mann–Whitney (the smallest exact
  // two-sided p for 3 vs 3 is 2/20 = 0.1), however clear the difference looks.
  const std::vector<double> base = {100.0, 100.5, 101.0};
  const std::vector<double> cand = {90.0, 90.5, 91.0};
  const auto r = ab_verdict(base, cand);
  EXPECT_EQ(r.verdict, Verdict::Inconclusive) << r.reason;
  EXPECT_GT(r.improvement_ci->lower, 0.01);
  EXPECT_DOUBLE_EQ(r.rank_test->p_value, 0.1);
  EXPECT_NE(r.reason.find("p >= 0.05"), std::string::npos) << r.reason;
  ASSERT_TRUE(r.more);
  EXPECT_GT(r.more->per_side, 3);
}

TEST(AbVerdict, TooFewSamplesAreInconclusive) {
  const std::vector<double> two = {100.0, 101.0};
  const std::vector<double> five = {90.0, 91.0, 92.0, 93.0, 94.0};
  const auto r = ab_verdict(two, five);
  EXPECT_EQ(r.verdict, Verdict::Inconclusive);
  EXPECT_NE(r.reason.find("too few samples"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.ratio_ci);
  EXPECT_FALSE(r.rank_test);
  EXPECT_FALSE(r.more);
  EXPECT_DOUBLE_EQ(r.base_median, 100.5);
  EXPECT_DOUBLE_EQ(r.cand_median, 92.0);
  const std::vector<double> none;
  const auto empty = ab_verdict(none, five);
  EXPECT_EQ(empty.verdict, Verdict::Inconclusive);
  EXPECT_TRUE(std::isnan(empty.base_median));
}

TEST(AbVerdict, RejectsBadInput) {
  const std::vector<double> ok = {1.0, 2.0, 3.0};
  const std::vector<double> negative = {1.0, -2.0, 3.0};
  EXPECT_THROW(ab_verdict(ok, negative), std::invalid_argument);
  AbOptions o;
  o.threshold = 0.0;
  EXPECT_THROW(ab_verdict(ok, ok, o), std::invalid_argument);
  o = {};
  o.alpha = 1.0;
  EXPECT_THROW(ab_verdict(ok, ok, o), std::invalid_argument);
  o = {};
  o.min_samples = 1;
  EXPECT_THROW(ab_verdict(ok, ok, o), std::invalid_argument);
  o = {};
  o.resamples = 10;
  EXPECT_THROW(ab_verdict(ok, ok, o), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
