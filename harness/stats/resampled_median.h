// The median of a bootstrap resample, drawn in O(n) without sorting.
//
// Why: the gate bootstraps every metric of every run with 10,000 replicates, and simulations do
// that thousands of times; copying, sorting or nth_element-ing each resample dominates the cost.
// Method: the sample is sorted once. A replicate draws n indices uniformly with replacement into
// a count array (reused between replicates), then walks the cumulative counts to the middle
// rank(s): the median of the resample is read off the sorted sample. The draw sequence is exactly
// "n calls of rng.uniform_int(n)", so a naive implementation with the same Rng gives the same
// replicate medians (the tests check this).
// Limits: not thread-safe (the count array is shared state); one object per thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pb::stats {

class Rng;

class ResampledMedian {
 public:
  // Copies and sorts `values`; throws std::invalid_argument when empty or a value is NaN.
  explicit ResampledMedian(std::span<const double> values);

  // Median of one resample of size n drawn with replacement (mean of the middle two for even n).
  double draw(Rng& rng);

  // Median of the sample itself.
  double median() const;

  // Median of the sample with the i-th smallest value left out (the jackknife); needs size() >= 2.
  double median_without(size_t i) const;

  size_t size() const { return sorted_.size(); }
  std::span<const double> sorted() const { return sorted_; }

 private:
  std::vector<double> sorted_;
  std::vector<uint32_t> counts_;
};

}  // namespace pb::stats
