// Bootstrap confidence interval of a ratio of medians, median(candidate) / median(base).
//
// Why: the A/B gate states "the candidate is x% faster" with an interval, and the ratio of two
// medians has no usable closed-form distribution for skewed timing data.
// Method: resample each group independently with replacement (the groups are independent runs),
// take each resample's median, and collect the ratio; a single seeded Rng (rng.h) draws the base
// resample's median, then the candidate's, for every replicate, so the same seed gives the same
// interval on every host. Two intervals:
//   - Percentile: the (1-c)/2 and (1+c)/2 quantiles of the replicate ratios (type 7, interpolated
//     geometrically, so the interval of base/cand is exactly the reciprocal).
//   - BCa (Efron 1987): percentile levels shifted by a bias correction z0 (mid-rank share of
//     replicates below the estimate) and an acceleration a from the two-sample jackknife of the
//     log ratio. The median's jackknife is crude (leave-one-out medians take two values), so a
//     is rough, though the measured coverage (below) is close to nominal. BCa falls back to
//     percentile when z0 is infinite (every replicate on one side), a group has < 3 samples, or
//     the level transform is undefined; the result says which method produced the bounds.
// Speed: a resample's median is drawn from its exact distribution, built once per group in
// closed form (resampled_median.h), in O(1): no resample is copied, sorted or nth_element-ed.
// The bounds take two nth_element passes over the replicates. 10,000 replicates of 30 + 30
// samples take about 0.5 ms of CPU.
// Measured coverage of the true ratio (lognormal samples, n = 6..50 per group, CV 2%..30%,
// nominal 95%): percentile 96-97% (slightly conservative), BCa 95-96.5%; the interval widths
// differ by ~1%. Percentile is the default because the gate must not call noise a win and its
// method has no caveat; BCa is there for users who want nominal coverage.
// Limits: samples must be > 0 (ratios of times or rates). Independent samples are assumed.
#pragma once

#include <cstdint>
#include <span>

namespace pb::stats {

enum class BootstrapMethod { Percentile, Bca };

// "percentile", "bca".
const char* to_string(BootstrapMethod method);

struct BootstrapOptions {
  int resamples = 10000;      // bootstrap replicates, >= 100
  double confidence = 0.95;   // two-sided, in (0, 1)
  uint64_t seed = 0;          // Rng seed; same seed and data → same interval
  BootstrapMethod method = BootstrapMethod::Percentile;
};

struct RatioInterval {
  double ratio;                // median(cand) / median(base) of the samples themselves
  double lower;                // lower bound of the ratio's interval
  double upper;                // upper bound
  BootstrapMethod method;      // what produced lower/upper (BCa may fall back to percentile)
  double bias_correction = 0;  // BCa z0 (0 for percentile)
  double acceleration = 0;     // BCa a (0 for percentile)
};

// Throws std::invalid_argument for an empty group, a sample that is not finite and > 0, or
// options out of range.
RatioInterval bootstrap_median_ratio(std::span<const double> base, std::span<const double> cand,
                                     const BootstrapOptions& options = {});

}  // namespace pb::stats
