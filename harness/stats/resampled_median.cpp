#include "harness/stats/resampled_median.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/stats/portable_math.h"
#include "harness/stats/rng.h"

namespace pb::stats {
namespace {

// Pair probabilities below this share of A_i end the scan over j (their sum is smaller still).
constexpr double kNegligible = 1e-17;

// Binomial(n, k/n) probabilities for one sample size, from a table of log factorials.
class IndexBinomial {
 public:
  explicit IndexBinomial(size_t n) : n_(n), log_factorial_(n + 1, 0.0) {
    for (size_t i = 2; i <= n; ++i) {
      log_factorial_[i] = log_factorial_[i - 1] + portable_log(static_cast<double>(i));
    }
  }

  // P(C(k) = c): c of the n draws land on x(1..k).
  double pmf(size_t k, size_t c) const {
    if (k == 0) return c == 0 ? 1.0 : 0.0;
    if (k == n_) return c == n_ ? 1.0 : 0.0;
    const double p = static_cast<double>(k) / static_cast<double>(n_);
    return portable_exp(log_factorial_[n_] - log_factorial_[c] - log_factorial_[n_ - c] +
                        static_cast<double>(c) * portable_log(p) +
                        static_cast<double>(n_ - c) * portable_log(1.0 - p));
  }

  // P(C(k) >= m). Sums the tail on the far side of the mean (terms shrink away from the mode, so
  // the first term is the largest and nothing is lost to underflow).
  double at_least(size_t k, size_t m) const {
    if (m == 0) return 1.0;
    if (k == 0) return 0.0;
    if (k == n_) return 1.0;
    const double odds = static_cast<double>(k) / static_cast<double>(n_ - k);  // p / (1 - p)
    if (m > k) {  // mean k < m: sum c = m, m+1, ... upwards
      double term = pmf(k, m);
      double sum = 0.0;
      for (size_t c = m; c <= n_ && term > 0.0; ++c) {
        sum += term;
        if (term < sum * kNegligible) break;
        term *= static_cast<double>(n_ - c) / static_cast<double>(c + 1) * odds;
      }
      return std::min(1.0, sum);
    }
    // mean >= m: 1 - P(C <= m - 1), summing c = m-1, m-2, ... downwards
    double term = pmf(k, m - 1);
    double sum = 0.0;
    for (size_t c = m - 1;; --c) {
      sum += term;
      if (c == 0 || term == 0.0 || term < sum * kNegligible) break;
      term *= static_cast<double>(c) / static_cast<double>(n_ - c + 1) / odds;
    }
    return std::max(0.0, 1.0 - sum);
  }

 private:
  size_t n_;
  std::vector<double> log_factorial_;
};

// (t / d)^e through the portable log and exp.
double power_ratio(double t, double d, double e) {
  if (t <= 0.0) return 0.0;
  return portable_exp(e * portable_log(t / d));
}

}  // namespace

ResampledMedian::ResampledMedian(std::span<const double> values)
    : sorted_(values.begin(), values.end()) {
  if (sorted_.empty()) throw std::invalid_argument("resampled median of no samples");
  for (double v : sorted_) {
    if (std::isnan(v)) throw std::invalid_argument("resampled median: NaN sample");
  }
  std::sort(sorted_.begin(), sorted_.end());
  const size_t n = sorted_.size();
  const IndexBinomial binomial(n);

  if (n % 2 == 1) {
    const size_t m = (n + 1) / 2;
    double below = 0.0;  // P(C(k-1) >= m)
    for (size_t k = 1; k <= n; ++k) {
      const double upto = binomial.at_least(k, m);
      if (upto > below) outcomes_.push_back({sorted_[k - 1], upto - below});
      below = upto;
    }
  } else {
    const size_t m = n / 2;
    const auto rest = static_cast<double>(n - m);
    double below = 0.0;
    for (size_t i = 1; i <= n; ++i) {
      const double upto = binomial.at_least(i, m);
      const double p_first = upto - below;  // P(K1 = i)
      below = upto;
      if (!(p_first > 0.0)) continue;
      double a = 0.0;  // A_i
      if (i < n) {
        a = binomial.pmf(i, m) -
            binomial.pmf(i - 1, m) * power_ratio(static_cast<double>(n - i),
                                                 static_cast<double>(n - i + 1), rest);
        a = std::clamp(a, 0.0, p_first);
      }
      if (p_first - a > 0.0) outcomes_.push_back({sorted_[i - 1], p_first - a});
      if (a == 0.0) continue;
      const auto span = static_cast<double>(n - i);
      for (size_t j = i + 1; j <= n; ++j) {
        const double g_before = power_ratio(static_cast<double>(n - j + 1), span, rest);
        const double g_after = power_ratio(static_cast<double>(n - j), span, rest);
        const double w = a * (g_before - g_after);
        if (w > 0.0) outcomes_.push_back({(sorted_[i - 1] + sorted_[j - 1]) / 2.0, w});
        if (g_after < kNegligible) break;
      }
    }
  }

  // Walker's alias table (Vose's construction), normalised by the total kept mass.
  const size_t count = outcomes_.size();
  double total = 0.0;
  for (const auto& o : outcomes_) total += o.probability;
  std::vector<double> scaled(count);
  std::vector<uint32_t> small;
  std::vector<uint32_t> large;
  for (size_t k = 0; k < count; ++k) {
    outcomes_[k].probability /= total;
    scaled[k] = outcomes_[k].probability * static_cast<double>(count);
    (scaled[k] < 1.0 ? small : large).push_back(static_cast<uint32_t>(k));
  }
  accept_.assign(count, 1.0);
  alias_.resize(count);
  for (size_t k = 0; k < count; ++k) alias_[k] = static_cast<uint32_t>(k);
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back();
    small.pop_back();
    const uint32_t l = large.back();
    accept_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
}

double ResampledMedian::draw(Rng& rng) const {
  const auto k = static_cast<size_t>(rng.uniform_int(outcomes_.size()));
  return outcomes_[rng.uniform01() < accept_[k] ? k : alias_[k]].value;
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
