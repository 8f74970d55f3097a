// What the gate compares and how strict it is: the flags `gate`, `ab` and `cycle record` share.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace pb::gate {

struct GateOptions {
  std::string metric;       // the headline metric; empty = each run's repetitions.headline
  double threshold = 0.01;  // relative improvement that matters (0.01 = 1%), > 0
  double alpha = 0.05;      // Mann–Whitney significance level, in (0, 1)
  uint64_t seed = 0;        // bootstrap seed: the same files and seed give the same report
  int resamples = 10000;    // bootstrap replicates
  // Config keys left out when matching runs (--ignore-axis): `ab --a-set/--b-set` gives the two
  // sides different values of these axes on purpose, so they cannot decide which runs pair up.
  std::set<std::string> ignored_keys;
};

// The gate's flags as typed (`gate`, `ab` and `cycle record` share them).
struct GateFlags {
  std::string metric;                     // --metric
  std::string threshold = "1%";           // --threshold, "1%" or "0.01"
  double alpha = 0.05;                    // --alpha
  uint64_t seed = 0;                      // --seed
  std::vector<std::string> ignored_axes;  // --ignore-axis: config keys left out of the matching

  // Throws UsageError for a threshold or alpha out of range.
  GateOptions options() const;
};

// "1%" → 0.01, "0.01" → 0.01, "2.5%" → 0.025. Throws UsageError naming `flag` for anything that
// is not a finite number > 0 and < 1 (as a fraction).
double parse_threshold(const std::string& text, const std::string& flag = "--threshold");

// Throws UsageError unless 0 < alpha < 1.
void check_alpha(double alpha, const std::string& flag = "--alpha");

}  // namespace pb::gate
