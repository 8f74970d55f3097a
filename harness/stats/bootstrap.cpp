#include "harness/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/stats/portable_math.h"
#include "harness/stats/resampled_median.h"
#include "harness/stats/rng.h"
#include "harness/stats/standard_normal.h"

namespace pb::stats {
namespace {

void require_positive_samples(std::span<const double> values, const char* group) {
  if (values.empty()) {
    throw std::invalid_argument(std::string("bootstrap: the ") + group + " group has no samples");
  }
  for (double v : values) {
    if (!std::isfinite(v) || v <= 0.0) {
      throw std::invalid_argument(std::string("bootstrap: ") + group +
                                  " samples must be finite and > 0, got " + std::to_string(v));
    }
  }
}

void require_options(const BootstrapOptions& options) {
  if (options.resamples < 100) {
    throw std::invalid_argument("bootstrap: resamples must be >= 100, got " +
                                std::to_string(options.resamples));
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    throw std::invalid_argument("bootstrap: confidence must be in (0, 1), got " +
                                std::to_string(options.confidence));
  }
}

// Type-7 quantile at probability p of `ratios` (reordered in place), interpolated between the two
// neighbouring order statistics in log space, so quantiles of 1/ratio are exact reciprocals.
double ratio_quantile(std::vector<double>& ratios, double p) {
  p = std::clamp(p, 0.0, 1.0);
  const double position = p * static_cast<double>(ratios.size() - 1);
  const auto k = static_cast<size_t>(std::floor(position));
  const double fraction = position - static_cast<double>(k);
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(k), ratios.end());
  const double below = ratios[k];
  if (fraction == 0.0 || k + 1 >= ratios.size()) return below;
  const double above =
      *std::min_element(ratios.begin() + static_cast<std::ptrdiff_t>(k) + 1, ratios.end());
  if (below == above) return below;
  return portable_exp((1.0 - fraction) * portable_log(below) + fraction * portable_log(above));
}

// Efron's acceleration for a two-sample statistic from the jackknife of each group:
// a = sum_g sum_i U_gi^3 / n_g^3 / (6 (sum_g sum_i U_gi^2 / n_g^2)^1.5), with influence values
// U_gi = (n_g - 1)(mean_i theta_(gi) - theta_(gi)), theta = log median(cand) - log median(base).
double jackknife_acceleration(const ResampledMedian& base, const ResampledMedian& cand) {
  const double log_base = std::log(base.median());
  const double log_cand = std::log(cand.median());
  double cubes = 0.0;
  double squares = 0.0;
  std::vector<double> theta;
  for (int group = 0; group < 2; ++group) {
    const ResampledMedian& g = group == 0 ? base : cand;
    const size_t n = g.size();
    theta.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const double left_out = std::log(g.median_without(i));
      theta[i] = group == 0 ? log_cand - left_out : left_out - log_base;
    }
    double mean = 0.0;
    for (double t : theta) mean += t;
    mean /= static_cast<double>(n);
    const double nd = static_cast<double>(n);
    for (double t : theta) {
      const double u = (nd - 1.0) * (mean - t);
      cubes += u * u * u / (nd * nd * nd);
      squares += u * u / (nd * nd);
    }
  }
  if (squares == 0.0) return 0.0;
  return cubes / (6.0 * std::pow(squares, 1.5));
}

// BCa bounds into `out`; false when BCa is undefined here and percentile must be used.
bool bca_bounds(std::vector<double>& ratios, const ResampledMedian& base,
                const ResampledMedian& cand, double confidence, RatioInterval& out) {
  if (base.size() < 3 || cand.size() < 3) return false;
  size_t below = 0;
  size_t equal = 0;
  for (double r : ratios) {
    below += r < out.ratio;
    equal += r == out.ratio;
  }
  const double share = (static_cast<double>(below) + 0.5 * static_cast<double>(equal)) /
                       static_cast<double>(ratios.size());
  if (share <= 0.0 || share >= 1.0) return false;
  const double z0 = normal_quantile(share);
  const double a = jackknife_acceleration(base, cand);
  const double z_low = normal_quantile((1.0 - confidence) / 2.0);
  const double z_high = -z_low;
  const double d_low = 1.0 - a * (z0 + z_low);
  const double d_high = 1.0 - a * (z0 + z_high);
  if (!(d_low > 0.0 && d_high > 0.0) || !std::isfinite(a)) return false;
  const double p_low = normal_cdf(z0 + (z0 + z_low) / d_low);
  const double p_high = normal_cdf(z0 + (z0 + z_high) / d_high);
  if (!(p_low < p_high)) return false;
  out.lower = ratio_quantile(ratios, p_low);
  out.upper = ratio_quantile(ratios, p_high);
  out.method = BootstrapMethod::Bca;
  out.bias_correction = z0;
  out.acceleration = a;
  return true;
}

}  // namespace

const char* to_string(BootstrapMethod method) {
  switch (method) {
    case BootstrapMethod::Percentile: return "percentile";
    case BootstrapMethod::Bca: return "bca";
  }
  return "unknown";
}

RatioInterval bootstrap_median_ratio(std::span<const double> base, std::span<const double> cand,
                                     const BootstrapOptions& options) {
  require_positive_samples(base, "base");
  require_positive_samples(cand, "candidate");
  require_options(options);

  ResampledMedian base_medians(base);
  ResampledMedian cand_medians(cand);
  Rng rng(options.seed);
  std::vector<double> ratios(static_cast<size_t>(options.resamples));
  for (double& r : ratios) {
    const double b = base_medians.draw(rng);
    r = cand_medians.draw(rng) / b;
  }

  RatioInterval result{cand_medians.median() / base_medians.median(), 0.0, 0.0,
                       BootstrapMethod::Percentile};
  if (options.method == BootstrapMethod::Bca &&
      bca_bounds(ratios, base_medians, cand_medians, options.confidence, result)) {
    return result;
  }
  result.lower = ratio_quantile(ratios, (1.0 - options.confidence) / 2.0);
  result.upper = ratio_quantile(ratios, (1.0 + options.confidence) / 2.0);
  return result;
}

}  // namespace pb::stats
