// Distribution-free confidence interval of the median from order statistics.
//
// Why: timings are skewed and heavy-tailed (clock boosts, a preempted submit), so a mean ± t·s
// interval is wrong in both directions. The median's interval from order statistics assumes only
// independent samples from a continuous distribution.
// Method: with n sorted samples x(1) <= ... <= x(n), the number of samples below the true median
// is Binomial(n, 1/2), so P(x(l) <= median <= x(n+1-l)) = 1 - 2 P(B <= l - 1). We take the
// largest l whose coverage still reaches the requested confidence (the narrowest symmetric
// interval), and report the coverage it achieves (at least the requested one, often more,
// because the binomial is discrete): n = 10 at 95% gives (x(2), x(9)), coverage 0.9785.
// Limits: needs at least min_samples_for_median_ci(confidence) samples (6 for 95%); below that no
// pair of order statistics reaches the confidence and the functions return std::nullopt rather
// than an interval that claims more than it has. Serially correlated samples (drift, thermal
// throttling) break the independence assumption and make the interval too narrow.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace pb::stats {

// Ranks (1-based, in sorted order) of the order statistics that bound the median.
struct OrderStatisticInterval {
  size_t lower_rank;  // l, 1..n
  size_t upper_rank;  // n + 1 - l
  double coverage;    // 1 - 2 P(Binomial(n, 1/2) <= l - 1), >= the requested confidence
};

// The interval's ranks for n samples, or std::nullopt when n is too small for `confidence`.
// Throws std::invalid_argument unless 0 < confidence < 1.
std::optional<OrderStatisticInterval> median_ci_ranks(size_t n, double confidence = 0.95);

// Smallest n for which median_ci_ranks(n, confidence) has a value (6 for 0.95, 8 for 0.99).
size_t min_samples_for_median_ci(double confidence = 0.95);

struct MedianCi {
  double median;       // sample median (mean of the middle two for even n)
  double lower;        // x(lower_rank)
  double upper;        // x(upper_rank)
  size_t lower_rank;   // 1-based
  size_t upper_rank;   // 1-based
  double coverage;     // achieved coverage, >= the requested confidence
};

// Median and its confidence interval, or std::nullopt when there are too few samples.
// Throws std::invalid_argument for a NaN sample or a confidence outside (0, 1).
std::optional<MedianCi> median_ci(std::span<const double> values, double confidence = 0.95);

// Half the interval's width relative to the median: (upper - lower) / 2 / |median|. The stopping
// rule compares it with max_rel_ci. A zero median gives 0 for a zero-width interval and +inf
// otherwise.
double relative_half_width(const MedianCi& ci);

}  // namespace pb::stats
