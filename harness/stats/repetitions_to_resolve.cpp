#include "harness/stats/repetitions_to_resolve.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/stats/standard_normal.h"

namespace pb::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Largest shrink factor s with margin >= width * s; +inf when width is 0, 0 when margin <= 0.
double max_shrink(double margin, double width) {
  if (margin <= 0.0) return 0.0;
  if (width <= 0.0) return kInf;
  return margin / width;
}

}  // namespace

RepetitionEstimate repetitions_to_resolve(const ResolveInput& in, int cap) {
  if (!(in.threshold > 0.0)) {
    throw std::invalid_argument("repetitions_to_resolve: threshold must be > 0, got " +
                                std::to_string(in.threshold));
  }
  if (!(in.alpha > 0.0 && in.alpha < 1.0)) {
    throw std::invalid_argument("repetitions_to_resolve: alpha must be in (0, 1), got " +
                                std::to_string(in.alpha));
  }
  if (cap < 1) throw std::invalid_argument("repetitions_to_resolve: cap must be >= 1");
  if (in.base_count == 0 || in.cand_count == 0) {
    throw std::invalid_argument("repetitions_to_resolve: no samples on one side");
  }
  if (!(in.lower <= in.estimate && in.estimate <= in.upper)) {
    throw std::invalid_argument("repetitions_to_resolve: the interval does not contain the "
                                "estimate");
  }
  const double nb = static_cast<double>(in.base_count);
  const double nc = static_cast<double>(in.cand_count);
  const double n_now = 2.0 * nb * nc / (nb + nc);
  const double c = in.estimate;
  const double t = in.threshold;
  const double below = c - in.lower;
  const double above = in.upper - c;

  double shrink = 0.0;
  bool clears = true;
  if (c > t) {
    shrink = max_shrink(c - t, below);
  } else if (c < -t) {
    shrink = max_shrink(-t - c, above);
  } else {
    clears = false;
    shrink = std::min(max_shrink(t - c, above), max_shrink(c + t, below));
  }
  double needed = shrink == 0.0 ? kInf : n_now / (shrink * shrink);
  if (clears && in.p_value >= in.alpha) {
    const double z_now = normal_quantile(1.0 - std::clamp(in.p_value, 0.0, 1.0) / 2.0);
    const double z_needed = normal_quantile(1.0 - in.alpha / 2.0);
    needed = std::max(needed, z_now > 0.0 ? n_now * (z_needed / z_now) * (z_needed / z_now) : kInf);
  }
  const double current = static_cast<double>(std::max(in.base_count, in.cand_count));
  needed = std::max(std::ceil(needed), current + 1.0);
  if (needed > static_cast<double>(cap)) return {cap, true};
  return {static_cast<int>(needed), false};
}

}  // namespace pb::stats
