#include "scenarios/scenario.h"

#include <fstream>
#include <sstream>

#include "harness/errors.h"

namespace pb {
namespace {

constexpr const char* kTopLevelKeys[] = {"name", "description", "model", "gguf", "weights", "seed",
                                         "workload", "base", "axes", "exclude", "repetitions",
                                         "headline"};

// Line and column (1-based) of a byte offset.
std::pair<size_t, size_t> line_column(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

void require_object(const nlohmann::ordered_json& j, const std::string& where, const char* what) {
  if (!j.is_object()) throw UsageError(where + ": expected " + what + ", got " + j.dump());
}

stats::StoppingRule parse_repetitions(const nlohmann::ordered_json& j, const std::string& where) {
  require_object(j, where, "an object with warmup, min, max, max_rel_ci, max_seconds");
  stats::StoppingRule r;
  for (const auto& [key, value] : j.items()) {
    const std::string at = where + "/" + escape_pointer(key);
    const bool integer = key == "warmup" || key == "min" || key == "max";
    if (integer) {
      if (!value.is_number_integer()) throw UsageError(at + ": " + value.dump() + " is not an integer");
      (key == "warmup" ? r.warmup : key == "min" ? r.min : r.max) = value.get<int>();
    } else if (key == "max_rel_ci" || key == "max_seconds") {
      if (!value.is_number()) throw UsageError(at + ": " + value.dump() + " is not a number");
      (key == "max_rel_ci" ? r.max_rel_ci : r.max_seconds) = value.get<double>();
    } else {
      throw UsageError(at + ": unknown key; the keys are warmup, min, max, max_rel_ci, max_seconds");
    }
  }
  try {
    stats::validate(r);
  } catch (const std::invalid_argument& e) {
    throw UsageError(where + ": " + e.what());
  }
  return r;
}

bool matches(const RunConfig& config, const nlohmann::json& when) {
  const nlohmann::json c = to_json(config);
  for (const auto& [key, value] : when.items()) {
    if (!c.contains(key) || c[key] != value) return false;
  }
  return true;
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& file) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    throw UsageError(file + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                     ": malformed JSON (" + e.what() + ")");
  }
  require_object(j, file, "a scenario object");
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* k : kTopLevelKeys) known |= key == k;
    if (!known) {
      std::string keys;
      for (const char* k : kTopLevelKeys) keys += (keys.empty() ? "" : ", ") + std::string(k);
      throw UsageError(file + ": /" + escape_pointer(key) + ": unknown key; the keys are " + keys);
    }
  }
  Scenario s;
  s.file = file;
  s.source = j;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    throw UsageError(file + ": /name: a scenario needs a name (a non-empty string)");
  }
  s.name = j["name"];
  if (j.contains("description")) {
    if (!j["description"].is_string()) throw UsageError(file + ": /description: expected a string");
    s.description = j["description"];
  }
  const std::string prefix = file + ": /";
  for (const char* key : {"model", "gguf", "weights", "seed"}) {
    if (j.contains(key)) apply_axis(s.base, key, j[key], prefix + key);
  }
  if (j.contains("workload")) {
    require_object(j["workload"], prefix + "workload", "an object with prompt_tokens, decode_tokens");
    for (const auto& [key, value] : j["workload"].items()) {
      if (key != "prompt_tokens" && key != "decode_tokens") {
        throw UsageError(prefix + "workload/" + escape_pointer(key) +
                         ": unknown key; the keys are prompt_tokens, decode_tokens");
      }
      apply_axis(s.base, key, value, prefix + "workload/" + key);
    }
  }
  if (j.contains("base")) {
    require_object(j["base"], prefix + "base", "an object of axis values");
    for (const auto& [key, value] : j["base"].items()) {
      apply_axis(s.base, key, value, prefix + "base/" + escape_pointer(key));
    }
  }
  if (j.contains("axes")) {
    require_object(j["axes"], prefix + "axes", "an object mapping axis names to lists of values");
    for (const auto& [key, values] : j["axes"].items()) {
      const std::string at = prefix + "axes/" + escape_pointer(key);
      if (!values.is_array() || values.empty()) {
        throw UsageError(at + ": expected a non-empty list of values, got " + values.dump());
      }
      std::vector<nlohmann::json> list;
      for (size_t i = 0; i < values.size(); ++i) {
        RunConfig probe = s.base;
        apply_axis(probe, key, values[i], at + "/" + std::to_string(i));  // validates the value
        list.push_back(values[i]);
      }
      s.axes.emplace_back(key, std::move(list));
    }
  }
  if (j.contains("exclude")) {
    if (!j["exclude"].is_array()) throw UsageError(prefix + "exclude: expected a list");
    for (size_t i = 0; i < j["exclude"].size(); ++i) {
      const auto& e = j["exclude"][i];
      const std::string at = prefix + "exclude/" + std::to_string(i);
      require_object(e, at, "an object with \"when\" and \"reason\"");
      if (!e.contains("reason") || !e["reason"].is_string() || e["reason"].get<std::string>().empty()) {
        throw UsageError(at + "/reason: every exclusion needs a reason (a non-empty string)");
      }
      if (!e.contains("when") || !e["when"].is_object() || e["when"].empty()) {
        throw UsageError(at + "/when: expected an object of axis values, e.g. {\"prefill\": \"decode-loop\"}");
      }
      for (const auto& [key, value] : e["when"].items()) {
        RunConfig probe = s.base;
        apply_axis(probe, key, value, at + "/when/" + escape_pointer(key));
      }
      s.exclude.push_back({nlohmann::json(e["when"]), e["reason"].get<std::string>()});
      for (const auto& [key, value] : e.items()) {
        if (key != "when" && key != "reason") {
          throw UsageError(at + "/" + escape_pointer(key) + ": unknown key; the keys are when, reason");
        }
      }
    }
  }
  if (j.contains("repetitions")) s.repetitions = parse_repetitions(j["repetitions"], prefix + "repetitions");
  if (j.contains("headline")) {
    if (!j["headline"].is_string()) throw UsageError(prefix + "headline: expected a metric name");
    s.headline = j["headline"];
  }
  if (s.expand().empty()) {
    throw UsageError(file + ": /exclude: every combination of the axes is excluded; nothing would run");
  }
  return s;
}

Scenario load_scenario(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path.string() + ": cannot open the scenario file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), path.string());
}

std::vector<ScenarioRun> Scenario::expand() const {
  std::vector<ScenarioRun> runs;
  std::vector<size_t> at(axes.size(), 0);
  size_t index = 0;
  for (;;) {
    ScenarioRun run;
    run.config = base;
    run.axes = nlohmann::json::object();
    for (size_t a = 0; a < axes.size(); ++a) {
      const auto& value = axes[a].second[at[a]];
      apply_axis(run.config, axes[a].first, value, file + ": /axes/" + axes[a].first);
      run.axes[axes[a].first] = value;
    }
    bool excluded = false;
    for (const auto& e : exclude) excluded |= matches(run.config, e.when);
    run.index = index++;
    if (!excluded) runs.push_back(run);
    // Next combination: the last axis varies fastest.
    size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++at[a] < axes[a].second.size()) break;
      at[a] = 0;
      if (a == 0) return runs;
    }
    if (axes.empty()) return runs;
  }
}

void apply_overrides(Scenario& s, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--set " + o + ": expected axis=value, e.g. --set submit=per-prompt");
    }
    const std::string key = o.substr(0, eq);
    const std::string text = o.substr(eq + 1);
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error&) {
      value = text;  // a bare word such as per-prompt
    }
    apply_axis(s.base, key, value, "--set " + o);
    // An override fixes the axis: it is no longer swept.
    std::erase_if(s.axes, [&](const auto& axis) { return axis.first == key; });
  }
}

}  // namespace pb
