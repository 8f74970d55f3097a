// Mann–Whitney U: statistics with mid-ranks, exact p-values against published critical values
// and brute-force enumeration, and the tie-corrected normal approximation against a hand
// computation.
#include "harness/stats/mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace pb::stats {
namespace {

// Brute force: enumerate all C(n_x + n_y, n_x) subsets and count U <= u_min.
double brute_force_p(size_t n_x, size_t n_y, double u_x) {
  const size_t n = n_x + n_y;
  const double u_min = std::min(u_x, static_cast<double>(n_x * n_y) - u_x);
  double hits = 0.0;
  double total = 0.0;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) != n_x) continue;
    double u = 0.0;
    for (size_t i = 0; i < n; ++i) {
      if (!(mask >> i & 1)) continue;
      for (size_t j = 0; j < i; ++j) u += !(mask >> j & 1);  // y values below this x value
    }
    total += 1.0;
    hits += u <= u_min;
  }
  return std::min(1.0, 2.0 * hits / total);
}

TEST(MannWhitney, UStatisticCountsPairs) {
  const std::vector<double> x = {1.5, 3.5, 6.0};
  const std::vector<double> y = {1.0, 2.0, 4.0, 5.0};
  const auto r = mann_whitney_u(x, y);
  // x=1.5 beats 1 y, 3.5 beats 2, 6.0 beats 4: U_x = 7, U_y = 12 - 7 = 5.
  EXPECT_DOUBLE_EQ(r.u_x, 7.0);
  EXPECT_DOUBLE_EQ(r.u_y, 5.0);
  EXPECT_FALSE(r.ties);
  EXPECT_EQ(r.method, MannWhitneyMethod::Exact);
}

// Distinct data whose i-th x value lies above exactly below[i] of the n_y y values
// (y_j = 10 j, x_i = 10 below[i] - 5 + 0.01 i), so U_x = sum(below).
void build(const std::vector<size_t>& below, size_t n_y, std::vector<double>& x,
           std::vector<double>& y) {
  x.clear();
  y.clear();
  for (size_t j = 0; j < n_y; ++j) y.push_back(10.0 * static_cast<double>(j));
  for (size_t i = 0; i < below.size(); ++i) {
    x.push_back(10.0 * static_cast<double>(below[i]) - 5.0 + 0.01 * static_cast<double>(i));
  }
}

TEST(MannWhitney, ExactMatchesPublishedCriticalValues) {
  // Two-sided critical values at alpha = 0.05 from the standard Mann–Whitney table:
  // n1 = n2 = 5 → U = 2 (p = 8/252 = 0.0317); n1 = 4, n2 = 5 → U = 1 (p = 4/126 = 0.0317);
  // n1 = n2 = 8 → U = 13 (p = 642/12870 = 0.0499). The others are one step off a critical
  // value (4x5, U = 2: 8/126) or the extreme (3x7, U = 0: 2/120). Python enumeration of all
  // subsets agrees, and so does brute_force_p here.
  struct Case { std::vector<size_t> below; size_t n_y; double u, p; };
  const std::vector<Case> cases = {
      {{0, 0, 0, 0, 2}, 5, 2, 8.0 / 252},
      {{0, 0, 0, 1}, 5, 1, 4.0 / 126},
      {{0, 0, 0, 2}, 5, 2, 8.0 / 126},
      {{0, 0, 0, 0, 0, 0, 5, 8}, 8, 13, 642.0 / 12870},
      {{0, 0, 0}, 7, 0, 2.0 / 120},
      {{7, 7, 7}, 7, 21, 2.0 / 120},  // the mirror image: U_x = 21, U_y = 0
  };
  for (const Case& c : cases) {
    std::vector<double> x;
    std::vector<double> y;
    build(c.below, c.n_y, x, y);
    const auto r = mann_whitney_u(x, y);
    ASSERT_DOUBLE_EQ(r.u_x, c.u) << x.size() << "x" << c.n_y;
    EXPECT_EQ(r.method, MannWhitneyMethod::Exact);
    EXPECT_NEAR(r.p_value, c.p, 1e-12) << x.size() << "x" << c.n_y << " U=" << c.u;
    EXPECT_NEAR(r.p_value, brute_force_p(x.size(), c.n_y, r.u_x), 1e-12);
    // Swapping the groups swaps U and keeps p.
    const auto swapped = mann_whitney_u(y, x);
    EXPECT_DOUBLE_EQ(swapped.u_x, r.u_y);
    EXPECT_DOUBLE_EQ(swapped.p_value, r.p_value);
  }
}

TEST(MannWhitney, NullCountsMatchBruteForce) {
  for (size_t n_x = 1; n_x <= 7; ++n_x) {
    for (size_t n_y = 1; n_y <= 7; ++n_y) {
      const auto counts = mann_whitney_null_counts(n_x, n_y);
      ASSERT_EQ(counts.size(), n_x * n_y + 1);
      // Enumerate subsets of n_x positions among n_x + n_y.
      std::vector<double> brute(n_x * n_y + 1, 0.0);
      const size_t n = n_x + n_y;
      for (uint32_t mask = 0; mask < (1u << n); ++mask) {
        if (static_cast<size_t>(__builtin_popcount(mask)) != n_x) continue;
        size_t u = 0;
        for (size_t i = 0; i < n; ++i) {
          if (!(mask >> i & 1)) continue;
          for (size_t j = 0; j < i; ++j) u += !(mask >> j & 1);
        }
        brute[u] += 1.0;
      }
      EXPECT_EQ(counts, brute) << n_x << "x" << n_y;
    }
  }
  // Largest exact case: the counts add up to C(100, 50) and are symmetric.
  const auto big = mann_whitney_null_counts(50, 50);
  EXPECT_NEAR(std::accumulate(big.begin(), big.end(), 0.0), 1.0089134454556419e29, 1e15);
  EXPECT_EQ(big.front(), 1.0);
  EXPECT_EQ(big[1], 1.0);
  EXPECT_EQ(big[2], 2.0);
  EXPECT_EQ(big[1250 - 7], big[1250 + 7]);
}

TEST(MannWhitney, NormalApproximationWithTiesMatchesHandComputation) {
  // x = {1, 2, 2, 3}, y = {2, 4, 4, 5}. Pooled ranks: 1 → 1; the three 2s → 3; 3 → 5;
  // the two 4s → 6.5; 5 → 8. R_x = 1 + 3 + 3 + 5 = 12, U_x = 12 - 4·5/2 = 2, U_y = 14.
  // mean = 8; ties (t = 3, t = 2): sum(t^3 - t) = 30;
  // var = 16/12 (9 - 30/56) = 11.285714...; sd = 3.3594217;
  // z = (|2 - 8| - 0.5) / sd = 1.6371865; p = 2 (1 - Phi(z)) = 0.10159150.
  const std::vector<double> x = {1, 2, 2, 3};
  const std::vector<double> y = {2, 4, 4, 5};
  const auto r = mann_whitney_u(x, y);
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.method, MannWhitneyMethod::NormalApproximation);
  EXPECT_DOUBLE_EQ(r.u_x, 2.0);
  EXPECT_DOUBLE_EQ(r.u_y, 14.0);
  EXPECT_NEAR(r.z, -1.6371865339158649, 1e-12);
  EXPECT_NEAR(r.p_value, 0.1015914998616528, 1e-12);
  EXPECT_STREQ(to_string(r.method), "normal-approximation");
}

TEST(MannWhitney, LargeGroupsUseTheNormalApproximation) {
  std::vector<double> x(60);
  std::vector<double> y(60);
  for (size_t i = 0; i < 60; ++i) {
    x[i] = 2.0 * static_cast<double>(i);
    y[i] = 2.0 * static_cast<double>(i) + 1.0;
  }
  const auto r = mann_whitney_u(x, y);
  EXPECT_EQ(r.method, MannWhitneyMethod::NormalApproximation);
  EXPECT_DOUBLE_EQ(r.u_x, 60.0 * 59.0 / 2.0);  // x_i beats y_0..y_{i-1}
  // With the exact path allowed up to 60, the two agree closely at this size.
  const auto exact = mann_whitney_u(x, y, {60});
  EXPECT_EQ(exact.method, MannWhitneyMethod::Exact);
  EXPECT_NEAR(exact.p_value, r.p_value, 0.002);
}

TEST(MannWhitney, AllValuesEqualGiveNoEvidence) {
  const std::vector<double> x = {3, 3, 3};
  const std::vector<double> y = {3, 3};
  const auto r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u_x, 3.0);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
}

TEST(MannWhitney, RejectsBadInput) {
  const std::vector<double> empty;
  const std::vector<double> one = {1.0};
  const std::vector<double> with_nan = {1.0, NAN};
  EXPECT_THROW(mann_whitney_u(empty, one), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u(one, with_nan), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u(one, one, {61}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_null_counts(61, 2), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
