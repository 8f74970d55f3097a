// Order-statistic interval of the median: ranks and coverage against the binomial, computed
// here by exact summation (and cross-checked with Python's fractions: n = 10 → 501/512,
// n = 20 → 125647/131072, n = 50 → 544463162459111/562949953421312).
#include "harness/stats/median_ci.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace pb::stats {
namespace {

// 1 - 2 P(Binomial(n, 1/2) <= l - 1) by direct summation of C(n, k) / 2^n (n <= 60).
double coverage_of(size_t n, size_t l) {
  double c = 1.0;  // C(n, k), exact in double for n <= 60
  double tail = 0.0;
  for (size_t k = 0; k + 1 <= l; ++k) {
    tail += c;
    c = c * static_cast<double>(n - k) / static_cast<double>(k + 1);
  }
  return 1.0 - 2.0 * tail / std::ldexp(1.0, static_cast<int>(n));
}

TEST(MedianCi, RanksAndCoverageAt95) {
  struct Case { size_t n, lower, upper; double coverage; };
  for (const Case& c : {Case{6, 1, 6, 31.0 / 32}, Case{10, 2, 9, 501.0 / 512},
                        Case{20, 6, 15, 125647.0 / 131072},
                        Case{50, 18, 33, 544463162459111.0 / 562949953421312.0}}) {
    const auto r = median_ci_ranks(c.n, 0.95);
    ASSERT_TRUE(r) << c.n;
    EXPECT_EQ(r->lower_rank, c.lower) << c.n;
    EXPECT_EQ(r->upper_rank, c.upper) << c.n;
    EXPECT_NEAR(r->coverage, c.coverage, 1e-12) << c.n;
    EXPECT_NEAR(r->coverage, coverage_of(c.n, c.lower), 1e-12) << c.n;
    // The next narrower interval would not reach 95%.
    EXPECT_LT(coverage_of(c.n, c.lower + 1), 0.95) << c.n;
  }
  EXPECT_NEAR(median_ci_ranks(10, 0.95)->coverage, 0.978515625, 1e-12);
}

TEST(MedianCi, TooFewSamplesHaveNoInterval) {
  EXPECT_FALSE(median_ci_ranks(0, 0.95));
  EXPECT_FALSE(median_ci_ranks(5, 0.95));  // (x(1), x(5)) covers only 15/16 = 0.9375
  EXPECT_TRUE(median_ci_ranks(6, 0.95));
  EXPECT_EQ(min_samples_for_median_ci(0.95), 6u);
  EXPECT_EQ(min_samples_for_median_ci(0.99), 8u);  // 1 - 2^-7 = 0.992
  // An exact dyadic boundary is accepted: n = 5 at 15/16 gives (x(1), x(5)).
  const auto edge = median_ci_ranks(5, 15.0 / 16.0);
  ASSERT_TRUE(edge);
  EXPECT_EQ(edge->lower_rank, 1u);
  const std::vector<double> five = {1, 2, 3, 4, 5};
  EXPECT_FALSE(median_ci(five));
}

TEST(MedianCi, LargeSamplesDoNotUnderflow) {
  const auto r = median_ci_ranks(5000, 0.95);
  ASSERT_TRUE(r);
  // Normal approximation: l ~ n/2 - 1.96 sqrt(n)/2 = 2430.7
  EXPECT_NEAR(static_cast<double>(r->lower_rank), 2431.0, 2.0);
  EXPECT_GE(r->coverage, 0.95);
  EXPECT_LT(r->coverage, 0.955);
}

TEST(MedianCi, ValuesFromSortedSample) {
  const std::vector<double> x = {10.9, 10.1, 10.4, 10.0, 10.6, 10.2, 10.8, 10.3, 10.7, 10.5};
  const auto ci = median_ci(x, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->median, 10.45);
  EXPECT_DOUBLE_EQ(ci->lower, 10.1);   // x(2)
  EXPECT_DOUBLE_EQ(ci->upper, 10.8);   // x(9)
  EXPECT_NEAR(relative_half_width(*ci), 0.35 / 10.45, 1e-12);
}

TEST(MedianCi, RelativeHalfWidthOfZeroMedian) {
  EXPECT_EQ(relative_half_width({0.0, 0.0, 0.0, 1, 10, 0.95}), 0.0);
  EXPECT_TRUE(std::isinf(relative_half_width({0.0, -1.0, 1.0, 1, 10, 0.95})));
}

TEST(MedianCi, RejectsBadInput) {
  EXPECT_THROW(median_ci_ranks(10, 1.0), std::invalid_argument);
  EXPECT_THROW(median_ci_ranks(10, 0.0), std::invalid_argument);
  const std::vector<double> with_nan = {1, 2, NAN, 4, 5, 6};
  EXPECT_THROW(median_ci(with_nan), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
