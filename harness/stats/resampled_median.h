// The median of a bootstrap resample, drawn from its exact distribution in O(1).
//
// Why: the gate bootstraps every metric of every run with 10,000 replicates, and simulations do
// that thousands of times; building, sorting or nth_element-ing each resample dominates the cost.
// Method: a resample's median depends only on which order statistics of the sample land in the
// middle, and their distribution is known in closed form. Sort the sample x(1..n) and let C(k),
// the number of the n draws that pick one of x(1..k), be Binomial(n, k/n).
//   - odd n, m = (n+1)/2: the median is x(K) with P(K <= k) = P(C(k) >= m);
//   - even n, m = n/2: the median is (x(K1) + x(K2)) / 2, K1 <= K2, with
//       P(K1 = i)          = P(C(i) >= m) - P(C(i-1) >= m),
//       A_i                = P(C(i) = m, C(i-1) < m)
//                          = P(C(i) = m) - P(C(i-1) = m) ((n-i)/(n-i+1))^(n-m),
//       P(K1 = i, K2 = j)  = A_i [((n-j+1)/(n-i))^(n-m) - ((n-j)/(n-i))^(n-m)]   for j > i,
//       P(K1 = K2 = i)     = P(K1 = i) - A_i
//     (given C(i) = m, the other n - m draws fall uniformly on x(i+1..n)).
// The outcomes and their probabilities are built once (O(n) for odd n; O(n w) for even n, with w
// ~ 40 the number of j past which the pair probability is below 1e-17 of A_i), and each draw
// picks one outcome with Walker's alias method: one rng.uniform_int and one rng.uniform01. The
// distribution is the multinomial bootstrap's, exactly (the tests enumerate all n^n resamples
// for small n); only the mechanism differs from copying a resample. All arithmetic is + - * /
// and portable_log/portable_exp, so the tables, and the draws from a seeded Rng, are the same
// on every host.
// Limits: mass below ~1e-15 per even-n sample is dropped (pairs far apart); immutable after
// construction, so one object may serve several threads, each with its own Rng.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pb::stats {

class Rng;

class ResampledMedian {
 public:
  struct Outcome {
    double value;        // a possible median of a resample
    double probability;  // its probability under resampling with replacement
  };

  // Copies and sorts `values` and builds the distribution; throws std::invalid_argument when
  // empty or a value is NaN.
  explicit ResampledMedian(std::span<const double> values);

  // Median of one resample of size n drawn with replacement (mean of the middle two for even n).
  double draw(Rng& rng) const;

  // The median of the sample itself.
  double median() const;

  // Median of the sample with its i-th smallest value left out (the jackknife); needs size() >= 2.
  double median_without(size_t i) const;

  size_t size() const { return sorted_.size(); }
  std::span<const double> sorted() const { return sorted_; }

  // The distribution draw() samples from, one entry per order-statistic outcome (values may
  // repeat when the sample has ties; probabilities add to 1).
  std::span<const Outcome> outcomes() const { return outcomes_; }

 private:
  std::vector<double> sorted_;
  std::vector<Outcome> outcomes_;
  std::vector<double> accept_;   // alias method: keep outcome k with this probability...
  std::vector<uint32_t> alias_;  // ...else take outcome alias_[k]
};

}  // namespace pb::stats
