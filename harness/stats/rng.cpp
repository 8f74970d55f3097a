#include "harness/stats/rng.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/stats/portable_math.h"

namespace pb::stats {

double Rng::normal() {
  if (has_cached_normal_) {
    has_cached_normal_ = false;
    return cached_normal_;
  }
  // Marsaglia polar method: a point uniform in the unit disc gives two independent normals.
  // sqrt is correctly rounded by IEEE-754; the log is ours, so the result is portable.
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * portable_log(s) / s);
  cached_normal_ = v * factor;
  has_cached_normal_ = true;
  return u * factor;
}

double Rng::lognormal(double mu, double sigma) { return portable_exp(mu + sigma * normal()); }

double lognormal_sigma_for_cv(double cv) {
  if (!std::isfinite(cv) || cv < 0.0) {
    throw std::invalid_argument("lognormal_sigma_for_cv: coefficient of variation must be finite "
                                "and >= 0, got " + std::to_string(cv));
  }
  return std::sqrt(portable_log(1.0 + cv * cv));
}

}  // namespace pb::stats
