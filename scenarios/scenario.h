// A scenario file (DESIGN.md, Scenarios): a model and workload, a base configuration, the axes
// to sweep, combinations to exclude (each with its reason), and the repetition rule. Expanding
// it gives the cartesian product of the axes over the base, in file order.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/stats/stopping_rule.h"
#include "scenarios/run_config.h"

namespace pb {

struct ScenarioRun {
  size_t index = 0;        // position in the full expansion (stable across shards)
  RunConfig config;
  nlohmann::json axes;     // the axis values this run varies (for labels)
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;                 // where it was read from
  nlohmann::ordered_json source;    // the file as written
  RunConfig base;
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> axes;  // in file order
  struct Exclusion {
    nlohmann::json when;  // axis -> value; a run matching every entry is excluded
    std::string reason;
  };
  std::vector<Exclusion> exclude;
  stats::StoppingRule repetitions;
  std::string headline;             // empty: each run's default

  std::vector<ScenarioRun> expand() const;
};

// Parses and validates a scenario. Every error is a UsageError that names the file, the JSON
// pointer, the bad value and what is allowed; malformed JSON names the line and column.
Scenario parse_scenario(const std::string& text, const std::string& file);
Scenario load_scenario(const std::filesystem::path& path);

// Applies `axis=value` overrides (--set) to every run of the scenario's base; values are
// parsed as JSON when they are, as strings otherwise.
void apply_overrides(Scenario& scenario, const std::vector<std::string>& overrides);

}  // namespace pb
