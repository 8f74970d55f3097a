// Descriptive statistics over samples: medians and quantiles as every summary reports them.
#pragma once

#include <span>

namespace pb::stats {

// Median of `values` (mean of the middle two for an even count). Throws on empty input.
double median(std::span<const double> values);

// Quantile q in [0, 1] by linear interpolation between order statistics (Hyndman & Fan type 7,
// the default of R and NumPy). Throws on empty input or q outside [0, 1].
double quantile(std::span<const double> values, double q);

double mean(std::span<const double> values);
double min(std::span<const double> values);
double max(std::span<const double> values);

}  // namespace pb::stats
