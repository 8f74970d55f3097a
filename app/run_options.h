// The axis flags of `phasebench run` (and the overrides of `ab`): each maps to one scenario axis
// and is applied through the same validation as a scenario file.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "harness/stats/stopping_rule.h"
#include "scenarios/run_config.h"

namespace pb::app {

struct RunOptions {
  std::map<std::string, std::string> axes;  // axis key -> value as typed
  bool double_buffer = false;
  bool skip_dead_work = false;
  bool no_coopmat = false;
  stats::StoppingRule rule{1, 5, 20, 0.02, 30.0};
  int repetitions = 0;  // --repetitions N: exactly N measured (min = max = N)

  void add_to(CLI::App& command);
  // The configuration the flags describe; throws UsageError naming the flag for a bad value.
  RunConfig config() const;
  stats::StoppingRule stopping_rule() const;
};

}  // namespace pb::app
