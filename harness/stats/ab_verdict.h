// The A/B gate's decision for one metric: is the candidate a win, a regression, flat, or is
// more data needed?
//
// Why: an optimization cycle is kept or dropped on this verdict, so it must not call noise a win,
// and "inconclusive" must come with a way forward.
// Method: the improvement is expressed so that positive = better: cand/base - 1 for a rate
// (higher_is_better, e.g. tokens/s), base/cand - 1 for a time. Its interval is the bootstrap
// interval of the ratio of medians (bootstrap.h) mapped the same way, and the rank test is the
// two-sided Mann–Whitney U (mann_whitney.h). With threshold t and significance alpha:
//   - Win:          interval entirely above +t (lower > t) AND p < alpha;
//   - Regression:   interval entirely below -t (upper < -t) AND p < alpha;
//   - Flat:         interval inside [-t, +t];
//   - Inconclusive: anything else, or fewer than min_samples on a side; with an estimate of the
//     repetitions per side that would likely resolve it (repetitions_to_resolve.h).
// Requiring both the interval and the rank test keeps the false-win rate on identical
// distributions far below alpha (the tests measure it).
// Limits: assumes independent samples within each side; drift between the two runs (clocks,
// temperature) looks like a real difference, which is why `ab` interleaves A and B. The
// "incorrect" verdict (fingerprints differ) belongs to the gate, not to this per-metric test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "harness/stats/bootstrap.h"
#include "harness/stats/mann_whitney.h"
#include "harness/stats/repetitions_to_resolve.h"

namespace pb::stats {

enum class Verdict { Win, Regression, Flat, Inconclusive };

// "win", "regression", "flat", "inconclusive" (the words of results JSON and the gate's table).
const char* to_string(Verdict verdict);

struct AbOptions {
  bool higher_is_better = false;  // true for rates (tokens/s), false for times
  double threshold = 0.01;        // relative improvement that matters, > 0 (0.01 = 1%)
  double alpha = 0.05;            // rank-test significance level, in (0, 1)
  uint64_t seed = 0;              // bootstrap seed
  int resamples = 10000;          // bootstrap replicates, >= 100
  double confidence = 0.95;       // bootstrap interval confidence, in (0, 1)
  BootstrapMethod method = BootstrapMethod::Percentile;
  int min_samples = 3;            // fewer on either side → Inconclusive; >= 2
  int max_repetitions = 1000;     // cap on the suggested repetitions per side, >= 1
};

struct Interval {
  double lower;
  double upper;
};

struct AbResult {
  Verdict verdict;
  std::string reason;           // one line: the numbers behind the verdict
  size_t base_count;
  size_t cand_count;
  double base_median;           // NaN when the side has no samples
  double cand_median;           // NaN when the side has no samples
  double ratio;                 // cand_median / base_median
  double improvement;           // positive = better: ratio - 1, or 1 / ratio - 1 for times
  std::optional<RatioInterval> ratio_ci;      // of cand/base; absent with too few samples
  std::optional<Interval> improvement_ci;     // the same interval as an improvement
  std::optional<MannWhitneyResult> rank_test; // U of the candidate vs the base
  std::optional<RepetitionEstimate> more;     // only for Inconclusive with enough samples
};

// Throws std::invalid_argument for a sample that is not finite and > 0, or options out of range.
AbResult ab_verdict(std::span<const double> base, std::span<const double> cand,
                    const AbOptions& options = {});

}  // namespace pb::stats
