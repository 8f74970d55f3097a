// The portable log and exp against the C library, and their special values.
#include "harness/stats/portable_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

TEST(PortableMath, AgreesWithTheCLibraryToAFewUlp) {
  Rng rng(4);
  for (int i = 0; i < 100000; ++i) {
    const int exponent = static_cast<int>(rng.uniform_int(200)) - 100;
    const double x = std::ldexp(rng.uniform(0.5, 1.0), exponent);
    EXPECT_NEAR(portable_log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x))));
    const double y = rng.uniform(-700.0, 700.0);
    EXPECT_NEAR(portable_exp(y), std::exp(y), 4e-16 * std::exp(y));
  }
  EXPECT_EQ(portable_log(1.0), 0.0);
  EXPECT_EQ(portable_exp(0.0), 1.0);
  EXPECT_EQ(portable_log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(portable_log(-1.0)));
  EXPECT_EQ(portable_exp(1000.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(portable_exp(-1000.0), 0.0);
}

}  // namespace
}  // namespace pb::stats
