#include "harness/stats/median_ci.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pb::stats {
namespace {

void require_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("median confidence interval: confidence must be in (0, 1), got " +
                                std::to_string(confidence));
  }
}

// P(Binomial(n, 1/2) = k) in log space, so that large n neither underflows nor overflows.
double log_binomial_half_pmf(size_t n, size_t k) {
  const auto nd = static_cast<double>(n);
  const auto kd = static_cast<double>(k);
  return std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) -
         nd * std::log(2.0);
}

}  // namespace

std::optional<OrderStatisticInterval> median_ci_ranks(size_t n, double confidence) {
  require_confidence(confidence);
  if (n == 0) return std::nullopt;
  const double tail = (1.0 - confidence) / 2.0;
  // Relative slack for rounding in the log-space sum, so that an exact dyadic tie such as
  // n = 5 at confidence 15/16 (tail 1/32 = P(B <= 0)) is accepted.
  const double allowed = tail * (1.0 + 1e-9);
  double cdf = 0.0;       // P(B <= k)
  double accepted = -1.0; // P(B <= l - 1) of the best l so far; < 0: none yet
  size_t lower_rank = 0;
  for (size_t k = 0; 2 * k < n; ++k) {
    cdf += std::exp(log_binomial_half_pmf(n, k));
    if (cdf > allowed) break;
    accepted = cdf;
    lower_rank = k + 1;
  }
  if (lower_rank == 0) return std::nullopt;
  return OrderStatisticInterval{lower_rank, n + 1 - lower_rank,
                                std::min(1.0, 1.0 - 2.0 * accepted)};
}

size_t min_samples_for_median_ci(double confidence) {
  require_confidence(confidence);
  // The widest interval (x(1), x(n)) covers with 1 - 2^(1-n), so the loop ends near
  // n = log2(2 / (1 - confidence)).
  size_t n = 1;
  while (!median_ci_ranks(n, confidence)) ++n;
  return n;
}

std::optional<MedianCi> median_ci(std::span<const double> values, double confidence) {
  require_confidence(confidence);
  for (double v : values) {
    if (std::isnan(v)) throw std::invalid_argument("median confidence interval: NaN sample");
  }
  const auto ranks = median_ci_ranks(values.size(), confidence);
  if (!ranks) return std::nullopt;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median =
      n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  return MedianCi{median,
                  sorted[ranks->lower_rank - 1],
                  sorted[ranks->upper_rank - 1],
                  ranks->lower_rank,
                  ranks->upper_rank,
                  ranks->coverage};
}

double relative_half_width(const MedianCi& ci) {
  const double half_width = (ci.upper - ci.lower) / 2.0;
  if (ci.median == 0.0) {
    return half_width == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return half_width / std::fabs(ci.median);
}

}  // namespace pb::stats
