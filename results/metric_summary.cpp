#include "results/metric_summary.h"

#include <chrono>
#include <ctime>

#include "harness/stats/descriptive.h"
#include "harness/stats/median_ci.h"

namespace pb {

nlohmann::json metric_summary(const std::vector<double>& values) {
  nlohmann::json s = {{"n", values.size()},
                      {"median", stats::median(values)},
                      {"mean", stats::mean(values)},
                      {"min", stats::min(values)},
                      {"max", stats::max(values)},
                      {"q1", stats::quantile(values, 0.25)},
                      {"q3", stats::quantile(values, 0.75)}};
  if (const auto ci = stats::median_ci(values)) {
    s["ci_low"] = ci->lower;
    s["ci_high"] = ci->upper;
    s["ci_coverage"] = ci->coverage;
  } else {
    s["ci_low"] = nullptr;  // too few samples for a 95% interval of the median
    s["ci_high"] = nullptr;
    s["ci_coverage"] = nullptr;
  }
  return s;
}

std::string utc_timestamp() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace pb
