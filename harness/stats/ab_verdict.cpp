#include "harness/stats/ab_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/stats/descriptive.h"

namespace pb::stats {
namespace {

void require_options(const AbOptions& o) {
  const auto reject = [](const std::string& what) {
    throw std::invalid_argument("A/B verdict: " + what);
  };
  if (!(o.threshold > 0.0) || !std::isfinite(o.threshold)) {
    reject("threshold must be finite and > 0, got " + std::to_string(o.threshold));
  }
  if (!(o.alpha > 0.0 && o.alpha < 1.0)) {
    reject("alpha must be in (0, 1), got " + std::to_string(o.alpha));
  }
  if (o.min_samples < 2) reject("min_samples must be >= 2, got " + std::to_string(o.min_samples));
  if (o.max_repetitions < 1) {
    reject("max_repetitions must be >= 1, got " + std::to_string(o.max_repetitions));
  }
  // resamples and confidence are checked by the bootstrap, with its own message.
}

void require_samples(std::span<const double> values, const char* side) {
  for (double v : values) {
    if (!std::isfinite(v) || v <= 0.0) {
      throw std::invalid_argument(std::string("A/B verdict: ") + side +
                                  " samples must be finite and > 0, got " + std::to_string(v));
    }
  }
}

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.2f%%", 100.0 * fraction);
  return buffer;
}

// "1.00%" for 0.01.
std::string magnitude(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", 100.0 * std::fabs(fraction));
  return buffer;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

}  // namespace

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Win: return "win";
    case Verdict::Regression: return "regression";
    case Verdict::Flat: return "flat";
    case Verdict::Inconclusive: return "inconclusive";
  }
  return "unknown";
}

AbResult ab_verdict(std::span<const double> base, std::span<const double> cand,
                    const AbOptions& options) {
  require_options(options);
  require_samples(base, "base");
  require_samples(cand, "candidate");
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  AbResult r{};
  r.verdict = Verdict::Inconclusive;
  r.base_count = base.size();
  r.cand_count = cand.size();
  r.base_median = base.empty() ? kNaN : median(base);
  r.cand_median = cand.empty() ? kNaN : median(cand);
  r.ratio = r.cand_median / r.base_median;
  r.improvement = options.higher_is_better ? r.ratio - 1.0 : 1.0 / r.ratio - 1.0;

  const auto min_samples = static_cast<size_t>(options.min_samples);
  if (base.size() < min_samples || cand.size() < min_samples) {
    r.reason = "too few samples: base " + std::to_string(base.size()) + ", candidate " +
               std::to_string(cand.size()) + "; need at least " +
               std::to_string(options.min_samples) + " per side";
    return r;
  }

  r.ratio_ci = bootstrap_median_ratio(
      base, cand, {options.resamples, options.confidence, options.seed, options.method});
  r.improvement_ci = options.higher_is_better
                         ? Interval{r.ratio_ci->lower - 1.0, r.ratio_ci->upper - 1.0}
                         : Interval{1.0 / r.ratio_ci->upper - 1.0, 1.0 / r.ratio_ci->lower - 1.0};
  r.rank_test = mann_whitney_u(cand, base);

  const double t = options.threshold;
  const double lo = r.improvement_ci->lower;
  const double hi = r.improvement_ci->upper;
  const double p = r.rank_test->p_value;
  const bool significant = p < options.alpha;
  const std::string numbers = percent(r.improvement) + " [" + percent(lo) + ", " + percent(hi) +
                              "], p = " + number(p) + " (" + to_string(r.rank_test->method) + ")";
  const std::string limit = magnitude(t);

  if (lo > t && significant) {
    r.verdict = Verdict::Win;
    r.reason = "win: " + numbers + "; interval above +" + limit;
  } else if (hi < -t && significant) {
    r.verdict = Verdict::Regression;
    r.reason = "regression: " + numbers + "; interval below -" + limit;
  } else if (lo >= -t && hi <= t) {
    r.verdict = Verdict::Flat;
    r.reason = "flat: " + numbers + "; interval inside ±" + limit;
  } else {
    r.more = repetitions_to_resolve({r.improvement, std::min(lo, r.improvement),
                                     std::max(hi, r.improvement), t, p, options.alpha,
                                     base.size(), cand.size()},
                                    options.max_repetitions);
    r.reason = "inconclusive: " + numbers + "; ";
    if (lo > t || hi < -t) {
      r.reason += "interval clears ±" + limit + " but p >= " + number(options.alpha);
    } else {
      r.reason += "interval crosses ±" + limit;
    }
    if (r.more->capped) {
      r.reason += "; more than " + std::to_string(r.more->per_side) +
                  " repetitions per side would be needed (too close to the threshold to resolve)";
    } else {
      r.reason += "; about " + std::to_string(r.more->per_side) +
                  " repetitions per side would likely resolve it";
    }
  }
  return r;
}

}  // namespace pb::stats
