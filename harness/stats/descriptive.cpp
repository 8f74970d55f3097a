#include "harness/stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace pb::stats {
namespace {

void require_samples(std::span<const double> values, const char* what) {
  if (values.empty()) throw std::invalid_argument(std::string(what) + " of no samples");
}

}  // namespace

double quantile(std::span<const double> values, double q) {
  require_samples(values, "quantile");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile outside [0, 1]");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<size_t>(std::floor(position));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + fraction * (sorted[upper] - sorted[lower]);
}

double median(std::span<const double> values) {
  require_samples(values, "median");
  return quantile(values, 0.5);
}

double mean(std::span<const double> values) {
  require_samples(values, "mean");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double min(std::span<const double> values) {
  require_samples(values, "min");
  return *std::min_element(values.begin(), values.end());
}

double max(std::span<const double> values) {
  require_samples(values, "max");
  return *std::max_element(values.begin(), values.end());
}

}  // namespace pb::stats
