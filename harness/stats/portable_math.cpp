#include "harness/stats/portable_math.h"

#include <cmath>
#include <limits>

namespace pb::stats {
namespace {

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtHalf = 0.70710678118654752440;

}  // namespace

double portable_log(double x) {
  if (std::isnan(x) || x < 0.0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return x;
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m * 2^exponent, m in [0.5, 1); exact
  if (m < kSqrtHalf) {
    m *= 2.0;  // exact
    --exponent;
  }
  // m in [sqrt(1/2), sqrt(2)): log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716,
  // s^2 <= 0.0295; the series through s^25 leaves an error below 1e-19.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double series = 1.0 / 25.0;
  for (int odd = 23; odd >= 3; odd -= 2) series = 1.0 / odd + s2 * series;
  const double log_m = 2.0 * s + 2.0 * s * s2 * series;
  const double k = exponent;
  return k * kLn2Hi + (k * kLn2Lo + log_m);
}

double portable_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.1332191019412) return 0.0;
  // x = k ln2 + r with |r| <= ln2 / 2; e^x = 2^k e^r.
  const double k = std::round(x * kInvLn2);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series of e^r through r^17: |r|^18 / 18! < 1e-22.
  double poly = 1.0;
  for (int n = 17; n >= 1; --n) poly = 1.0 + r * poly / n;
  return std::ldexp(poly, static_cast<int>(k));
}

}  // namespace pb::stats
