// Medians and type-7 quantiles against the values R's quantile() and NumPy's np.quantile give
// by default (both type 7 / "linear"); Python's statistics.quantiles(method="inclusive")
// computes the same and produced the numbers below.
#include "harness/stats/descriptive.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace pb::stats {
namespace {

TEST(Descriptive, QuantilesOfOneToTen) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // R: quantile(1:10, c(0, .1, .25, .5, .75, .9, 1)) → 1.0 1.9 3.25 5.5 7.75 9.1 10
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.1), 1.9);
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 3.25);
  EXPECT_DOUBLE_EQ(median(x), 5.5);
  EXPECT_DOUBLE_EQ(quantile(x, 0.75), 7.75);
  EXPECT_DOUBLE_EQ(quantile(x, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 10.0);
}

TEST(Descriptive, QuantilesOfUnsortedOddSample) {
  const std::vector<double> x = {3.1, 1.2, 7.7, 4.4, 2.0};
  // np.quantile([3.1, 1.2, 7.7, 4.4, 2.0], [.1, .25, .5, .75, .9]) → 1.52 2.0 3.1 4.4 6.38
  EXPECT_DOUBLE_EQ(quantile(x, 0.1), 1.52);
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 2.0);
  EXPECT_DOUBLE_EQ(median(x), 3.1);
  EXPECT_DOUBLE_EQ(quantile(x, 0.75), 4.4);
  EXPECT_NEAR(quantile(x, 0.9), 6.38, 1e-12);
}

TEST(Descriptive, QuantilesOfEvenSample) {
  const std::vector<double> x = {10.5, 9.75, 12.25, 11.0};
  // np.quantile([10.5, 9.75, 12.25, 11.0], [.1, .25, .5, .75]) → 9.975 10.3125 10.75 11.3125
  EXPECT_DOUBLE_EQ(quantile(x, 0.1), 9.975);
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 10.3125);
  EXPECT_DOUBLE_EQ(median(x), 10.75);
  EXPECT_DOUBLE_EQ(quantile(x, 0.75), 11.3125);
  EXPECT_DOUBLE_EQ(mean(x), 10.875);
  EXPECT_DOUBLE_EQ(min(x), 9.75);
  EXPECT_DOUBLE_EQ(max(x), 12.25);
}

TEST(Descriptive, RejectsEmptyInputAndBadProbability) {
  const std::vector<double> empty;
  const std::vector<double> one = {1.0};
  EXPECT_THROW(median(empty), std::invalid_argument);
  EXPECT_THROW(quantile(one, 1.5), std::invalid_argument);
  EXPECT_DOUBLE_EQ(median(one), 1.0);
}

}  // namespace
}  // namespace pb::stats
