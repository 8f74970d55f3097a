// The resampled median's exact distribution against enumeration of every resample, its alias
// sampler against that distribution, and large samples.
#include "harness/stats/resampled_median.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "harness/stats/descriptive.h"
#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

// Exact distribution of a resample's median by enumerating all n^n index tuples.
std::map<double, double> enumerate_medians(const std::vector<double>& values) {
  const size_t n = values.size();
  size_t tuples = 1;
  for (size_t i = 0; i < n; ++i) tuples *= n;
  std::map<double, uint64_t> count;  // integer counts: exact, unlike summing 1/n^n
  std::vector<double> resample(n);
  for (size_t code = 0; code < tuples; ++code) {
    size_t rest = code;
    for (size_t i = 0; i < n; ++i, rest /= n) resample[i] = values[rest % n];
    ++count[median(resample)];
  }
  std::map<double, double> probability;
  for (const auto& [value, c] : count) {
    probability[value] = static_cast<double>(c) / static_cast<double>(tuples);
  }
  return probability;
}

TEST(ResampledMedian, DistributionMatchesEnumerationOfAllResamples) {
  for (size_t n = 1; n <= 7; ++n) {
    // Powers of two: every single value and every mean of two is distinct.
    std::vector<double> values;
    for (size_t k = 0; k < n; ++k) values.push_back(std::ldexp(1.0, static_cast<int>(k) + 1));
    std::reverse(values.begin(), values.end());  // the class must sort
    const auto expected = enumerate_medians(values);
    const ResampledMedian rm(values);
    std::map<double, double> got;
    for (const auto& o : rm.outcomes()) got[o.value] += o.probability;
    ASSERT_EQ(got.size(), expected.size()) << n;
    for (const auto& [value, p] : expected) {
      EXPECT_NEAR(got[value], p, 1e-13) << "n = " << n << ", median " << value;
    }
  }
}

TEST(ResampledMedian, DrawsFollowTheDistribution) {
  const std::vector<double> values = {3, 1, 4, 1.5, 9, 2.6};
  const ResampledMedian rm(values);
  std::map<double, double> expected;
  for (const auto& o : rm.outcomes()) expected[o.value] += o.probability;
  Rng rng(12);
  constexpr int kDraws = 1000000;
  std::map<double, int> counts;
  for (int i = 0; i < kDraws; ++i) ++counts[rm.draw(rng)];
  for (const auto& [value, p] : expected) {
    const double sd = std::sqrt(kDraws * p * (1 - p));
    EXPECT_NEAR(counts[value], kDraws * p, 5 * sd + 1) << value;
  }
  EXPECT_EQ(rm.median(), median(values));
  EXPECT_EQ(rm.median_without(0), 3.0);  // {1.5, 2.6, 3, 4, 9}
  EXPECT_EQ(rm.median_without(5), 2.6);  // {1, 1.5, 2.6, 3, 4}
}

TEST(ResampledMedian, LargeSamplesKeepTheirMass) {
  for (size_t n : {999, 1000}) {
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = static_cast<double>(i);
    const ResampledMedian rm(values);
    double below_median = 0.0;
    double mean = 0.0;
    for (const auto& o : rm.outcomes()) {
      if (o.value < rm.median()) below_median += o.probability;
      mean += o.value * o.probability;
    }
    // The resampled median is centred on the sample median, sd ~ sqrt(n) / 2 ranks.
    EXPECT_NEAR(mean, rm.median(), 1.0) << n;
    EXPECT_NEAR(below_median, 0.5, 0.03) << n;
  }
}

}  // namespace
}  // namespace pb::stats
