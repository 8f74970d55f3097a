// The standard normal distribution: its CDF, upper tail and quantile (inverse CDF).
//
// Why: the Mann–Whitney normal approximation needs tail probabilities, and the BCa bootstrap
// needs both directions. <random> has no CDF and the C++ library has no quantile.
// Method: the CDF and tail go through std::erfc (accurate in both tails, no cancellation); the
// quantile is Wichura's AS 241 (PPND16, Applied Statistics 37, 1988), relative error ~1e-16.
// Limits: std::erfc is the C library's, so the last bit may differ between hosts; nothing here
// feeds a seeded random stream.
#pragma once

namespace pb::stats {

// P(Z <= z).
double normal_cdf(double z);

// P(Z > z), accurate far into the upper tail (no 1 - cdf cancellation).
double normal_upper_tail(double z);

// z such that P(Z <= z) = p. p == 0 → -inf, p == 1 → +inf; throws std::invalid_argument for p
// outside [0, 1] or NaN.
double normal_quantile(double p);

}  // namespace pb::stats
