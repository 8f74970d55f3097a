#include "harness/stats/stopping_rule.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/stats/median_ci.h"

namespace pb::stats {
namespace {

constexpr double kConfidence = 0.95;  // DESIGN.md: "the 95% confidence interval of the median"

[[noreturn]] void reject(const std::string& what) {
  throw std::invalid_argument("stopping rule: " + what);
}

}  // namespace

void validate(const StoppingRule& rule) {
  if (rule.warmup < 0) reject("warmup must be >= 0, got " + std::to_string(rule.warmup));
  if (rule.min < 1) reject("min must be >= 1, got " + std::to_string(rule.min));
  if (rule.max < rule.min) {
    reject("max (" + std::to_string(rule.max) + ") must be >= min (" + std::to_string(rule.min) +
           ")");
  }
  if (!(rule.max_rel_ci >= 0.0) || std::isinf(rule.max_rel_ci)) {
    reject("max_rel_ci must be finite and >= 0, got " + std::to_string(rule.max_rel_ci));
  }
  if (!(rule.max_seconds > 0.0)) {
    reject("max_seconds must be > 0, got " + std::to_string(rule.max_seconds));
  }
}

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::Continue: return "continue";
    case StopReason::Converged: return "converged";
    case StopReason::MaxReached: return "max-reached";
    case StopReason::TimeUp: return "time-up";
  }
  return "unknown";
}

StopDecision decide(const StoppingRule& rule, std::span<const double> samples,
                    double elapsed_seconds) {
  validate(rule);
  if (!(elapsed_seconds >= 0.0)) {
    reject("elapsed seconds must be >= 0, got " + std::to_string(elapsed_seconds));
  }
  // median_ci rejects NaN samples, but only once there are enough of them; check always.
  for (double v : samples) {
    if (std::isnan(v)) reject("NaN sample");
  }
  StopDecision decision{StopReason::Continue, std::nullopt};
  if (const auto ci = median_ci(samples, kConfidence)) decision.rel_ci = relative_half_width(*ci);
  if (samples.size() < static_cast<size_t>(rule.min)) return decision;
  if (decision.rel_ci && *decision.rel_ci <= rule.max_rel_ci) {
    decision.reason = StopReason::Converged;
  } else if (samples.size() >= static_cast<size_t>(rule.max)) {
    decision.reason = StopReason::MaxReached;
  } else if (elapsed_seconds >= rule.max_seconds) {
    decision.reason = StopReason::TimeUp;
  }
  return decision;
}

}  // namespace pb::stats
