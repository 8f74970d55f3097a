#include "harness/stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/stats/standard_normal.h"

namespace pb::stats {
namespace {

__extension__ typedef __int128 i128;  // GCC and Clang; C(120, 60) ~ 1e35 < 2^127

constexpr size_t kExactLimit = 60;

void require_samples(std::span<const double> values, const char* group) {
  if (values.empty()) {
    throw std::invalid_argument(std::string("Mann-Whitney U: group ") + group + " has no samples");
  }
  for (double v : values) {
    if (std::isnan(v)) {
      throw std::invalid_argument(std::string("Mann-Whitney U: NaN sample in group ") + group);
    }
  }
}

// Coefficients of the Gaussian binomial [n_x + n_y choose n_x]_q: counts of U = 0..n_x n_y.
std::vector<i128> null_counts(size_t n_x, size_t n_y) {
  const size_t small = std::min(n_x, n_y);
  const size_t large = std::max(n_x, n_y);
  // [large + i choose i]_q = [large + i - 1 choose i - 1]_q (1 - q^(large + i)) / (1 - q^i).
  // Every intermediate is an integer polynomial, so the exact division never rounds.
  std::vector<i128> c(small * large + large + small + 1, 0);
  c[0] = 1;
  size_t degree = 0;
  for (size_t i = 1; i <= small; ++i) {
    const size_t shift = large + i;
    for (size_t k = degree + shift; k >= shift; --k) c[k] -= c[k - shift];
    degree += shift;
    for (size_t k = i; k <= degree; ++k) c[k] += c[k - i];
    degree -= i;
  }
  c.resize(degree + 1);
  return c;
}

// Two-sided exact p-value for U (no ties): 2 P(U <= min(U_x, U_y)), capped at 1.
double exact_p_value(size_t n_x, size_t n_y, double u_x) {
  const std::vector<i128> counts = null_counts(n_x, n_y);
  const double u_min = std::min(u_x, static_cast<double>(n_x * n_y) - u_x);
  const auto last = static_cast<size_t>(u_min);
  i128 tail = 0;
  i128 total = 0;
  for (size_t u = 0; u < counts.size(); ++u) {
    total += counts[u];
    if (u <= last) tail += counts[u];
  }
  return std::min(1.0, 2.0 * static_cast<double>(tail) / static_cast<double>(total));
}

}  // namespace

const char* to_string(MannWhitneyMethod method) {
  switch (method) {
    case MannWhitneyMethod::Exact: return "exact";
    case MannWhitneyMethod::NormalApproximation: return "normal-approximation";
  }
  return "unknown";
}

std::vector<double> mann_whitney_null_counts(size_t n_x, size_t n_y) {
  if (n_x > kExactLimit || n_y > kExactLimit) {
    throw std::invalid_argument("Mann-Whitney null distribution: group sizes must be <= " +
                                std::to_string(kExactLimit));
  }
  const std::vector<i128> counts = null_counts(n_x, n_y);
  return std::vector<double>(counts.begin(), counts.end());
}

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 const MannWhitneyOptions& options) {
  require_samples(x, "x");
  require_samples(y, "y");
  if (options.exact_max_size < 0 || static_cast<size_t>(options.exact_max_size) > kExactLimit) {
    throw std::invalid_argument("Mann-Whitney U: exact_max_size must be in 0.." +
                                std::to_string(kExactLimit) + ", got " +
                                std::to_string(options.exact_max_size));
  }
  const size_t n_x = x.size();
  const size_t n_y = y.size();
  const size_t n = n_x + n_y;

  // Pool, sort, and assign mid-ranks to runs of equal values.
  std::vector<std::pair<double, bool>> pooled;  // (value, belongs to x)
  pooled.reserve(n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0.0;
  double tie_term = 0.0;  // sum over tie groups of t^3 - t
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && pooled[end].first == pooled[start].first) ++end;
    const double mid_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (size_t k = start; k < end; ++k) {
      if (pooled[k].second) rank_sum_x += mid_rank;
    }
    const auto t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    start = end;
  }

  const double nx = static_cast<double>(n_x);
  const double ny = static_cast<double>(n_y);
  MannWhitneyResult result{};
  result.u_x = rank_sum_x - nx * (nx + 1.0) / 2.0;
  result.u_y = nx * ny - result.u_x;
  result.ties = tie_term > 0.0;

  const auto exact_max = static_cast<size_t>(options.exact_max_size);
  if (!result.ties && n_x <= exact_max && n_y <= exact_max) {
    result.method = MannWhitneyMethod::Exact;
    result.p_value = exact_p_value(n_x, n_y, result.u_x);
    return result;
  }
  result.method = MannWhitneyMethod::NormalApproximation;
  const double mean = nx * ny / 2.0;
  const double nd = static_cast<double>(n);
  const double variance =
      nx * ny / 12.0 * ((nd + 1.0) - (n > 1 ? tie_term / (nd * (nd - 1.0)) : 0.0));
  if (!(variance > 0.0)) {  // every value equal: no evidence either way
    result.p_value = 1.0;
    return result;
  }
  const double sd = std::sqrt(variance);
  const double deviation = result.u_x - mean;
  const double corrected = std::max(0.0, std::fabs(deviation) - 0.5);
  result.z = std::copysign(corrected / sd, deviation);
  result.p_value = std::min(1.0, 2.0 * normal_upper_tail(corrected / sd));
  return result;
}

}  // namespace pb::stats
