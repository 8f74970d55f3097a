// Mann–Whitney U test (Wilcoxon rank-sum), two-sided: is one group stochastically larger?
//
// Why: the A/B gate pairs the bootstrap interval (how big) with a rank test (is it real) that
// needs no distributional assumption and ignores outliers' magnitude.
// Method: U_x = R_x - n_x (n_x + 1) / 2, with R_x the rank sum of x in the pooled sample and
// tied values given their mid-rank; U_x counts pairs (x_i, y_j) with x_i > y_j, ties 1/2, and
// U_x + U_y = n_x n_y.
//   - Exact: with no ties and both groups of at most `exact_max_size` samples, the p-value counts
//     rankings. Under the null all C(n_x + n_y, n_x) rankings are equally likely and the number
//     with U = u is the coefficient of q^u in the Gaussian binomial [n_x + n_y choose n_x]_q,
//     built as prod_i (1 - q^(n_y + i)) / (1 - q^i) in exact 128-bit integers:
//     O(min(n)^2 max(n)) steps. p = min(1, 2 P(U <= min(U_x, U_y))).
//   - Normal approximation otherwise: mean n_x n_y / 2, variance
//     n_x n_y / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) over tie groups of size t, and a
//     continuity correction of 1/2; p = 2 P(Z > (|U_x - mean| - 1/2) / sd), capped at 1.
// The result says which was used.
// Limits: tests a shift in distribution, not specifically in the median; with ties and small
// groups the normal approximation is rough (the gate requires the bootstrap interval too).
// exact_max_size is capped at 60 so that C(120, 60) counts fit in 128 bits.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace pb::stats {

enum class MannWhitneyMethod { Exact, NormalApproximation };

// "exact", "normal-approximation".
const char* to_string(MannWhitneyMethod method);

struct MannWhitneyOptions {
  int exact_max_size = 50;  // exact p-value when no ties and both groups <= this; 0..60
};

struct MannWhitneyResult {
  double u_x;       // U of the first group: pairs with x > y, ties counted 1/2
  double u_y;       // n_x n_y - u_x
  double p_value;   // two-sided
  MannWhitneyMethod method;
  bool ties;        // whether any value occurs more than once in the pooled sample
  double z;         // continuity-corrected z of U_x, signed (> 0: x tends larger); 0 when exact
};

// Throws std::invalid_argument for an empty group, a NaN sample or options out of range.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 const MannWhitneyOptions& options = {});

// Null distribution without ties: element u is the number of the C(n_x + n_y, n_x) rankings with
// U = u, for u = 0..n_x n_y (as doubles; exact below 2^53). Throws when n_x or n_y > 60.
std::vector<double> mann_whitney_null_counts(size_t n_x, size_t n_y);

}  // namespace pb::stats
