// Standard normal CDF and quantile against tabulated values and each other.
#include "harness/stats/standard_normal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace pb::stats {
namespace {

TEST(StandardNormal, TabulatedValues) {
  // Values from any normal table (and R's qnorm/pnorm).
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-16);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-12);
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-15);
  EXPECT_NEAR(normal_upper_tail(3.0), 1.3498980316301e-3, 1e-15);
  EXPECT_NEAR(normal_upper_tail(8.0), 6.22096057427178e-16, 1e-28);
}

TEST(StandardNormal, QuantileInvertsCdf) {
  // Above z = 4, 1 - cdf(z) keeps too few digits for a round trip through the lower tail.
  for (double z = -8.0; z <= 4.0; z += 0.125) {
    EXPECT_NEAR(normal_quantile(normal_cdf(z)), z, 1e-9 * std::max(1.0, std::fabs(z))) << z;
  }
  for (double p = 0.001; p < 1.0; p += 0.001) {
    EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, 1e-15) << p;
  }
}

TEST(StandardNormal, QuantileEdges) {
  EXPECT_EQ(normal_quantile(0.0), -INFINITY);
  EXPECT_EQ(normal_quantile(1.0), INFINITY);
  EXPECT_THROW(normal_quantile(-0.1), std::invalid_argument);
  EXPECT_THROW(normal_quantile(1.5), std::invalid_argument);
  EXPECT_THROW(normal_quantile(NAN), std::invalid_argument);
}

}  // namespace
}  // namespace pb::stats
