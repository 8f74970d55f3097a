#include "harness/stats/resampled_median.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/stats/rng.h"

namespace pb::stats {

ResampledMedian::ResampledMedian(std::span<const double> values)
    : sorted_(values.begin(), values.end()), counts_(values.size(), 0) {
  if (sorted_.empty()) throw std::invalid_argument("resampled median of no samples");
  if (sorted_.size() > UINT32_MAX) throw std::invalid_argument("resampled median: too many samples");
  for (double v : sorted_) {
    if (std::isnan(v)) throw std::invalid_argument("resampled median: NaN sample");
  }
  std::sort(sorted_.begin(), sorted_.end());
}

double ResampledMedian::draw(Rng& rng) {
  const size_t n = sorted_.size();
  std::fill(counts_.begin(), counts_.end(), 0u);
  for (size_t i = 0; i < n; ++i) ++counts_[rng.uniform_int(n)];
  const size_t low_rank = (n - 1) / 2;  // 0-based ranks of the middle one or two
  const size_t high_rank = n / 2;
  size_t before = 0;  // resampled values smaller than sorted_[j]'s block
  size_t j = 0;
  while (before + counts_[j] <= low_rank) before += counts_[j++];
  const double low = sorted_[j];
  if (high_rank == low_rank) return low;
  while (before + counts_[j] <= high_rank) before += counts_[j++];
  return (low + sorted_[j]) / 2.0;
}

double ResampledMedian::median() const {
  const size_t n = sorted_.size();
  return n % 2 == 1 ? sorted_[n / 2] : (sorted_[n / 2 - 1] + sorted_[n / 2]) / 2.0;
}

double ResampledMedian::median_without(size_t i) const {
  const size_t n = sorted_.size();
  if (n < 2 || i >= n) {
    throw std::invalid_argument("median_without: index " + std::to_string(i) + " of " +
                                std::to_string(n) + " samples");
  }
  const size_t m = n - 1;
  const auto at = [&](size_t rank) { return sorted_[rank < i ? rank : rank + 1]; };
  return m % 2 == 1 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2.0;
}

}  // namespace pb::stats
