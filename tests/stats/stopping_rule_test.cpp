// The repetition rule: never before min; converged, max and time stops, in that precedence.
#include "harness/stats/stopping_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pb::stats {
namespace {

// n samples alternating around 100 with a relative spread of `spread` (tight for small spread).
std::vector<double> samples(size_t n, double spread) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back(100.0 * (1.0 + spread * (static_cast<double>(i % 7) - 3.0) / 3.0));
  }
  return v;
}

const StoppingRule kRule{2, 10, 50, 0.01, 60.0};

TEST(StoppingRule, NeverStopsBeforeMin) {
  for (size_t n = 0; n < 10; ++n) {
    // Perfectly converged samples, time long gone: still continue.
    const auto d = decide(kRule, samples(n, 0.0), 1e9);
    EXPECT_FALSE(d.stop()) << n;
    EXPECT_EQ(d.reason, StopReason::Continue);
  }
}

TEST(StoppingRule, StopsAtMinWhenConverged) {
  const auto d = decide(kRule, samples(10, 0.001), 1.0);
  EXPECT_TRUE(d.stop());
  EXPECT_EQ(d.reason, StopReason::Converged);
  ASSERT_TRUE(d.rel_ci);
  EXPECT_LE(*d.rel_ci, 0.01);
}

TEST(StoppingRule, ContinuesWhileNoisy) {
  const auto d = decide(kRule, samples(20, 0.10), 1.0);
  EXPECT_FALSE(d.stop());
  ASSERT_TRUE(d.rel_ci);
  EXPECT_GT(*d.rel_ci, 0.01);
}

TEST(StoppingRule, StopsAtMax) {
  EXPECT_FALSE(decide(kRule, samples(49, 0.10), 1.0).stop());
  const auto d = decide(kRule, samples(50, 0.10), 1.0);
  EXPECT_EQ(d.reason, StopReason::MaxReached);
  EXPECT_STREQ(to_string(d.reason), "max-reached");
}

TEST(StoppingRule, StopsOnTimeOnlyAfterMin) {
  EXPECT_FALSE(decide(kRule, samples(9, 0.10), 61.0).stop());
  EXPECT_FALSE(decide(kRule, samples(12, 0.10), 59.9).stop());
  const auto d = decide(kRule, samples(12, 0.10), 60.0);
  EXPECT_EQ(d.reason, StopReason::TimeUp);
  EXPECT_STREQ(to_string(d.reason), "time-up");
}

TEST(StoppingRule, ConvergenceTakesPrecedence) {
  EXPECT_EQ(decide(kRule, samples(50, 0.001), 100.0).reason, StopReason::Converged);
}

TEST(StoppingRule, SmallMinWaitsForTheInterval) {
  // With min = 3 the 95% interval exists only from 6 samples on.
  const StoppingRule rule{0, 3, 50, 0.01, std::numeric_limits<double>::infinity()};
  EXPECT_FALSE(decide(rule, samples(5, 0.0), 1.0).stop());
  EXPECT_EQ(decide(rule, samples(6, 0.0), 1.0).reason, StopReason::Converged);
}

TEST(StoppingRule, RejectsBadRulesAndInput) {
  const auto message = [](const StoppingRule& r) {
    try {
      validate(r);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({-1, 10, 50, 0.01, 60}).find("warmup"), std::string::npos);
  EXPECT_NE(message({2, 0, 50, 0.01, 60}).find("min"), std::string::npos);
  EXPECT_NE(message({2, 10, 5, 0.01, 60}).find("max"), std::string::npos);
  EXPECT_NE(message({2, 10, 50, -0.01, 60}).find("max_rel_ci"), std::string::npos);
  EXPECT_NE(message({2, 10, 50, 0.01, 0}).find("max_seconds"), std::string::npos);
  EXPECT_EQ(message(kRule), "accepted");
  EXPECT_THROW(decide(kRule, samples(10, 0.0), -1.0), std::invalid_argument);
  EXPECT_THROW(decide(kRule, std::vector<double>{1.0, NAN}, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
