#include "results/gate/run_matching.h"

#include <map>
#include <utility>

#include "harness/errors.h"

namespace pb::gate {
namespace {

std::string join(const std::set<std::string>& keys) {
  std::string text;
  for (const auto& k : keys) text += (text.empty() ? "" : ", ") + k;
  return text;
}

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Axes added after result files already existed, with the value every run had before them: a
// config from an older file (or an older build, under `ab`) matches today's at that value.
const std::pair<const char*, const char*> kLaterAxes[] = {
    {"dmmv_activations", "float"}, {"norm_placement", "dispatch"}, {"glu_placement", "dispatch"}};

// Each run's config less the ignored keys, with the later axes' old values where absent, checked
// for shape and for duplicates.
std::vector<nlohmann::json> configs_of(const nlohmann::json& runs, const std::set<std::string>& ignored,
                                       const std::string& label) {
  std::vector<nlohmann::json> configs;
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    if (!run.is_object() || !run.contains("config") || !run["config"].is_object()) {
      throw UsageError(label + ": /runs/" + std::to_string(i) + "/config is missing or not an object");
    }
    configs.push_back(without_keys(run["config"], ignored));
    for (const auto& [key, value] : kLaterAxes) {
      if (!configs.back().contains(key) && !ignored.count(key)) configs.back()[key] = value;
    }
    const std::string key = config_key(configs.back());
    if (const auto it = seen.find(key); it != seen.end()) {
      throw UsageError(label + ": runs " + std::to_string(it->second) + " and " + std::to_string(i) +
                       " have the same config" + (ignored.empty() ? "" : " once " + join(ignored) + " are set aside") +
                       ", so they cannot be paired: " + key);
    }
    seen.emplace(key, i);
  }
  return configs;
}

std::string list_configs(const std::vector<nlohmann::json>& configs, const std::set<std::string>& keys) {
  std::string text;
  for (const auto& c : configs) text += "\n    " + describe_config(c, keys);
  return configs.empty() ? "\n    (no runs)" : text;
}

}  // namespace

std::string config_key(const nlohmann::json& config) {
  std::string key;
  for (const auto& [name, value] : config.items()) {  // nlohmann objects iterate in key order
    if (!key.empty()) key += ",";
    key += name + "=" + value_text(value);
  }
  return key;
}

nlohmann::json without_keys(const nlohmann::json& config, const std::set<std::string>& ignored) {
  nlohmann::json out = config;
  for (const auto& k : ignored) out.erase(k);
  return out;
}

std::set<std::string> varying_keys(const std::vector<nlohmann::json>& configs) {
  std::set<std::string> all, varying;
  for (const auto& c : configs) {
    for (const auto& [name, value] : c.items()) all.insert(name);
  }
  for (const auto& name : all) {
    for (const auto& c : configs) {
      if (!c.contains(name) || c[name] != configs.front().value(name, nlohmann::json())) {
        varying.insert(name);
        break;
      }
    }
  }
  return varying;
}

std::string describe_config(const nlohmann::json& config, const std::set<std::string>& keys) {
  std::string text;
  for (const auto& name : keys) {
    if (!text.empty()) text += ", ";
    text += name + "=" + (config.contains(name) ? value_text(config[name]) : "(none)");
  }
  return text.empty() ? "-" : text;
}

Matching match_runs(const nlohmann::json& base_runs, const nlohmann::json& cand_runs,
                    const std::set<std::string>& ignored, const std::string& base_label,
                    const std::string& cand_label) {
  const auto base = configs_of(base_runs, ignored, base_label);
  const auto cand = configs_of(cand_runs, ignored, cand_label);
  std::map<std::string, size_t> cand_by_key;
  for (size_t i = 0; i < cand.size(); ++i) cand_by_key.emplace(config_key(cand[i]), i);

  Matching m;
  std::set<size_t> paired;
  for (size_t i = 0; i < base.size(); ++i) {
    const std::string key = config_key(base[i]);
    const auto it = cand_by_key.find(key);
    if (it == cand_by_key.end()) {
      m.only_in_base.push_back(base[i]);
      continue;
    }
    m.pairs.push_back({i, it->second, base[i], key});
    paired.insert(it->second);
  }
  for (size_t i = 0; i < cand.size(); ++i) {
    if (!paired.count(i)) m.only_in_cand.push_back(cand[i]);
  }
  if (m.pairs.empty()) {
    std::vector<nlohmann::json> every = base;
    every.insert(every.end(), cand.begin(), cand.end());
    std::set<std::string> keys = varying_keys(every);
    if (keys.empty() && !every.empty()) keys = {"model"};  // only possible when one side is empty
    throw UsageError("no runs in common between " + base_label + " and " + cand_label +
                     " (runs are matched by their config" + (ignored.empty() ? "" : ", less " + join(ignored)) +
                     ").\n  " + base_label + " has " + std::to_string(base.size()) +
                     " run(s):" + list_configs(base, keys) + "\n  " + cand_label + " has " +
                     std::to_string(cand.size()) + " run(s):" + list_configs(cand, keys));
  }
  return m;
}

}  // namespace pb::gate
