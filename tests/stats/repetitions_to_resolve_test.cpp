// The repetitions estimate: 1/sqrt(n) shrinking of the interval, the rank test's z, the cap.
#include "harness/stats/repetitions_to_resolve.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pb::stats {
namespace {

TEST(RepetitionsToResolve, FlatNeedsTheIntervalInsideTheBand) {
  // Centre 0, half-width 2% at 10 per side, band ±1%: s = 0.5, n = 10 / 0.25 = 40.
  const auto r = repetitions_to_resolve({0.0, -0.02, 0.02, 0.01, 0.9, 0.05, 10, 10});
  EXPECT_EQ(r.per_side, 40);
  EXPECT_FALSE(r.capped);
}

TEST(RepetitionsToResolve, WinNeedsTheLowerBoundAboveTheThreshold) {
  // Centre 3%, lower 0.5%: the lower half-width 2.5% must shrink to below 2%: s = 0.8,
  // n = 10 / 0.64 = 15.6 → 16.
  const auto r = repetitions_to_resolve({0.03, 0.005, 0.055, 0.01, 0.01, 0.05, 10, 10});
  EXPECT_EQ(r.per_side, 16);
  // Regression mirrors it.
  const auto g = repetitions_to_resolve({-0.03, -0.055, -0.005, 0.01, 0.01, 0.05, 10, 10});
  EXPECT_EQ(g.per_side, 16);
}

TEST(RepetitionsToResolve, RankTestCanBeTheLimit) {
  // The interval already clears; p = 0.2 → z = 1.2816, need 1.96: n = 10 (1.96/1.2816)^2 = 23.4.
  const auto r = repetitions_to_resolve({0.03, 0.015, 0.045, 0.01, 0.2, 0.05, 10, 10});
  EXPECT_EQ(r.per_side, 24);
}

TEST(RepetitionsToResolve, UnequalSidesUseTheHarmonicMean) {
  // n_now = 2·10·40/50 = 16 → flat case s = 0.5 → 64.
  const auto r = repetitions_to_resolve({0.0, -0.02, 0.02, 0.01, 0.9, 0.05, 10, 40});
  EXPECT_EQ(r.per_side, 64);
}

TEST(RepetitionsToResolve, AlwaysAsksForMoreThanNow) {
  const auto r = repetitions_to_resolve({0.0, -0.0101, 0.0101, 0.01, 0.9, 0.05, 30, 30});
  EXPECT_EQ(r.per_side, 31);
}

TEST(RepetitionsToResolve, CentreOnTheThresholdIsCapped) {
  const auto r = repetitions_to_resolve({0.01, 0.0, 0.02, 0.01, 0.5, 0.05, 10, 10}, 500);
  EXPECT_EQ(r.per_side, 500);
  EXPECT_TRUE(r.capped);
  const auto far = repetitions_to_resolve({0.0, -0.5, 0.5, 0.01, 0.9, 0.05, 10, 10}, 500);
  EXPECT_TRUE(far.capped);
}

TEST(RepetitionsToResolve, RejectsBadInput) {
  EXPECT_THROW(repetitions_to_resolve({0.0, -0.02, 0.02, 0.0, 0.5, 0.05, 10, 10}),
               std::invalid_argument);
  EXPECT_THROW(repetitions_to_resolve({0.0, -0.02, 0.02, 0.01, 0.5, 1.0, 10, 10}),
               std::invalid_argument);
  EXPECT_THROW(repetitions_to_resolve({0.05, -0.02, 0.02, 0.01, 0.5, 0.05, 10, 10}),
               std::invalid_argument);
  EXPECT_THROW(repetitions_to_resolve({0.0, -0.02, 0.02, 0.01, 0.5, 0.05, 0, 10}),
               std::invalid_argument);
  EXPECT_THROW(repetitions_to_resolve({0.0, -0.02, 0.02, 0.01, 0.5, 0.05, 10, 10}, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
