// How many repetitions per side would likely turn an inconclusive A/B comparison into a verdict.
//
// Why: "inconclusive" is only useful with a next step; the gate says how many more repetitions
// to run instead of leaving the user to guess.
// Method: a bootstrap interval's half-widths shrink like 1/sqrt(n) while its centre stays put.
// With the point estimate c, the interval [lo, hi] at n_now samples per side, and threshold t
// (all as relative improvements), the interval at n samples is approximately
// [c - (c - lo) s, c + (hi - c) s] with s = sqrt(n_now / n). Solve for the largest s that
//   - clears the threshold when |c| > t (lo' > t, or hi' < -t), and
//   - fits inside [-t, t] when |c| <= t,
// giving n = n_now / s^2. When clearing the threshold, the rank test must agree as well: its z
// grows like sqrt(n), so n >= n_now (z_alpha / z_now)^2 too. n_now for unequal sides is the
// harmonic mean 2 n_b n_c / (n_b + n_c), the per-side count with the same variance.
// Limits: an estimate from one noisy interval, not a power calculation; treat it as a lower
// bound. A centre right at ±t needs unbounded n; results above `cap` are reported as the cap
// with capped = true.
#pragma once

#include <cstddef>

namespace pb::stats {

struct RepetitionEstimate {
  int per_side;  // suggested repetitions per side, > the current count, <= cap
  bool capped;   // the solved n exceeded the cap (or is unbounded): unlikely to resolve
};

struct ResolveInput {
  double estimate;     // relative improvement, positive = better
  double lower;        // its interval's lower bound
  double upper;        // its interval's upper bound
  double threshold;    // > 0
  double p_value;      // rank test p-value now
  double alpha;        // significance level, in (0, 1)
  size_t base_count;   // samples per side now
  size_t cand_count;
};

// Throws std::invalid_argument for a threshold <= 0, alpha outside (0, 1), a cap < 1, an
// interval that does not contain the estimate, or a zero count.
RepetitionEstimate repetitions_to_resolve(const ResolveInput& in, int cap = 1000);

}  // namespace pb::stats
