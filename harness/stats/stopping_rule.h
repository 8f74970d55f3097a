// When to stop repeating a measurement: the repetition rule of a scenario's "repetitions" block.
//
// Why: a fixed repetition count either wastes time on a quiet run or stops a noisy one before
// its median means anything. The rule repeats until the median is known well enough, within a
// time and count budget.
// Method: after `warmup` discarded repetitions (the caller runs and drops them), measured samples
// accumulate. Never stop before `min` samples. From `min` on, stop as soon as
//   1. converged: the distribution-free 95% CI of the median (median_ci.h) has
//      relative_half_width <= max_rel_ci; else
//   2. max reached: `max` samples are in; else
//   3. time up: elapsed_seconds >= max_seconds.
// Limits: `min` is a hard floor, so max_seconds bounds only the repetitions beyond `min`; a
// repetition slower than max_seconds / min makes the run take longer than max_seconds. The
// 95% CI needs 6 samples, so with min < 6 convergence cannot be declared before the 6th sample.
// The rule assumes independent samples; drift makes it stop too early.
#pragma once

#include <optional>
#include <span>

namespace pb::stats {

struct StoppingRule {
  int warmup = 2;             // repetitions run and discarded before measuring, >= 0
  int min = 10;               // measured repetitions before any stop, >= 1
  int max = 50;               // measured repetitions at most, >= min
  double max_rel_ci = 0.01;   // converged when CI half-width / median <= this, >= 0
  double max_seconds = 60.0;  // budget in seconds after which a run stops once it has `min`
                              // samples, > 0 (may be +inf)
};

// Throws std::invalid_argument naming the field when a value is out of range.
void validate(const StoppingRule& rule);

enum class StopReason {
  Continue,    // keep repeating
  Converged,   // the median's CI is narrow enough
  MaxReached,  // `max` samples measured
  TimeUp,      // `max_seconds` passed (with at least `min` samples)
};

// "continue", "converged", "max-reached", "time-up".
const char* to_string(StopReason reason);

struct StopDecision {
  StopReason reason;
  std::optional<double> rel_ci;  // relative half-width of the median's 95% CI, when defined
  bool stop() const { return reason != StopReason::Continue; }
};

// Decision after the measured (post-warm-up) `samples` so far, `elapsed_seconds` into the run
// (the caller's clock; warm-up included or not, as the caller documents). Throws
// std::invalid_argument for an invalid rule, a NaN sample or a negative or NaN elapsed time.
StopDecision decide(const StoppingRule& rule, std::span<const double> samples,
                    double elapsed_seconds);

}  // namespace pb::stats
