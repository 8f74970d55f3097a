// Pairs the runs of two result files by their configuration. Two runs match when their configs
// are equal (every axis value), apart from the keys the caller chose to ignore; order and
// anything outside `config` play no part. A config without an axis that was added later
// (dmmv_activations, norm_placement, glu_placement) counts as having the value runs had before it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace pb::gate {

struct RunPair {
  size_t base_index;      // into the base file's runs
  size_t cand_index;      // into the candidate file's runs
  nlohmann::json config;  // the config that matched: the run's, less the ignored keys
  std::string key;        // config_key(config): stable, unique within a file
};

struct Matching {
  std::vector<RunPair> pairs;                // in the base file's run order
  std::vector<nlohmann::json> only_in_base;  // configs (less the ignored keys) with no partner
  std::vector<nlohmann::json> only_in_cand;
};

// "barriers=global,chunk_cols=8,...": every key in sorted order, strings unquoted.
std::string config_key(const nlohmann::json& config);

// `config` without the ignored keys.
nlohmann::json without_keys(const nlohmann::json& config, const std::set<std::string>& ignored);

// The keys whose values are not the same in every one of `configs` (a missing key counts as a
// value): what a table needs to tell runs apart.
std::set<std::string> varying_keys(const std::vector<nlohmann::json>& configs);

// "submit=per-layer, double_buffer=true": only `keys`, in sorted order; "-" when empty.
std::string describe_config(const nlohmann::json& config, const std::set<std::string>& keys);

// Throws UsageError naming the labels for a run without a config object, a config that occurs
// twice in one file, or files without a single run in common; that last message lists each
// side's configs by the keys that tell them apart.
Matching match_runs(const nlohmann::json& base_runs, const nlohmann::json& cand_runs,
                    const std::set<std::string>& ignored, const std::string& base_label, const std::string& cand_label);

}  // namespace pb::gate
