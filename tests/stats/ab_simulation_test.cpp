// Simulations of the A/B gate with a fixed seed: how often it calls noise a win, how often it
// finds a real 3% change, and how often the bootstrap interval covers the true ratio.
//
// Samples are lognormal (right-skewed, like timings) with a given coefficient of variation; the
// true ratio of medians is known exactly because the lognormal's median is exp(mu). Every trial
// uses the full 10,000 bootstrap replicates the gate uses. Rates are printed, so the suite's log
// records them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/stats/ab_verdict.h"
#include "harness/stats/bootstrap.h"
#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

constexpr int kTrials = 1000;

struct Tally {
  int win = 0;
  int regression = 0;
  int flat = 0;
  int inconclusive = 0;
  void add(Verdict v) {
    switch (v) {
      case Verdict::Win: ++win; break;
      case Verdict::Regression: ++regression; break;
      case Verdict::Flat: ++flat; break;
      case Verdict::Inconclusive: ++inconclusive; break;
    }
  }
  std::string text() const {
    return "win " + std::to_string(win) + ", regression " + std::to_string(regression) +
           ", flat " + std::to_string(flat) + ", inconclusive " + std::to_string(inconclusive) +
           " of " + std::to_string(kTrials);
  }
};

void fill(Rng& rng, std::vector<double>& v, double median_value, double cv) {
  const double mu = std::log(median_value);
  const double sigma = lognormal_sigma_for_cv(cv);
  for (double& x : v) x = rng.lognormal(mu, sigma);
}

// Verdicts of kTrials comparisons of n-sample groups with medians base_median and cand_median.
Tally simulate(uint64_t seed, size_t n, double cv, double base_median, double cand_median,
               bool higher_is_better) {
  Rng rng(seed);
  std::vector<double> base(n);
  std::vector<double> cand(n);
  Tally tally;
  AbOptions options;
  options.higher_is_better = higher_is_better;
  for (int trial = 0; trial < kTrials; ++trial) {
    fill(rng, base, base_median, cv);
    fill(rng, cand, cand_median, cv);
    options.seed = seed * 1000003 + static_cast<uint64_t>(trial);
    tally.add(ab_verdict(base, cand, options).verdict);
  }
  return tally;
}

TEST(AbSimulation, IdenticalDistributionsAreRarelyCalledAWinOrRegression) {
  // 2% CV, 30 per side, no difference. The requirement is at most 5% of trials.
  const Tally t = simulate(1, 30, 0.02, 100.0, 100.0, false);
  std::printf("null, 30/side, 2%% CV: %s\n", t.text().c_str());
  RecordProperty("false_verdicts", t.win + t.regression);
  EXPECT_LE(t.win + t.regression, kTrials * 5 / 100);
}

TEST(AbSimulation, AChangeRightAtTheThresholdIsRarelyCalledAWin) {
  // A true +1.0% improvement is not "more than 1%": a win needs the interval's lower bound above
  // +1%, which a 95% interval allows in about 2.5% of trials.
  const Tally t = simulate(6, 30, 0.02, 100.0, 100.0 / 1.01, false);
  std::printf("exactly +1%%, 30/side, 2%% CV: %s\n", t.text().c_str());
  EXPECT_LE(t.win, kTrials * 5 / 100);
  EXPECT_EQ(t.regression, 0);
}

TEST(AbSimulation, ARealThreePercentChangeIsFound) {
  // 1% CV, 40 per side, candidate 3% better (time 1/1.03 of the base, or rate 1.03x) or worse.
  const Tally faster = simulate(2, 40, 0.01, 100.0, 100.0 / 1.03, false);
  const Tally higher_rate = simulate(3, 40, 0.01, 100.0, 103.0, true);
  const Tally slower = simulate(4, 40, 0.01, 100.0, 103.0, false);
  std::printf("3%% faster time, 40/side, 1%% CV: %s\n", faster.text().c_str());
  std::printf("3%% higher rate, 40/side, 1%% CV: %s\n", higher_rate.text().c_str());
  std::printf("3%% slower time, 40/side, 1%% CV: %s\n", slower.text().c_str());
  EXPECT_GE(faster.win, kTrials * 90 / 100);
  EXPECT_GE(higher_rate.win, kTrials * 90 / 100);
  EXPECT_GE(slower.regression, kTrials * 90 / 100);
  EXPECT_EQ(faster.regression + higher_rate.regression + slower.win, 0);
}

TEST(AbSimulation, BootstrapIntervalCoversTheTrueRatio) {
  // True ratio 1.03; 2% CV; 30 per side. Nominal 95%; the requirement is at least 93%.
  for (auto method : {BootstrapMethod::Percentile, BootstrapMethod::Bca}) {
    Rng rng(5);
    std::vector<double> base(30);
    std::vector<double> cand(30);
    int covered = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
      fill(rng, base, 100.0, 0.02);
      fill(rng, cand, 103.0, 0.02);
      const auto ci = bootstrap_median_ratio(
          base, cand, {10000, 0.95, static_cast<uint64_t>(trial), method});
      covered += ci.lower <= 1.03 && 1.03 <= ci.upper;
    }
    std::printf("coverage of the true ratio, %s, 30/side, 2%% CV: %d of %d\n", to_string(method),
                covered, kTrials);
    EXPECT_GE(covered, kTrials * 93 / 100) << to_string(method);
  }
}

}  // namespace
}  // namespace pb::stats
