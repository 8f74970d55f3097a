#include "results/gate/result_merge.h"

#include <map>

#include "harness/errors.h"
#include "harness/stats/descriptive.h"
#include "results/gate/run_matching.h"
#include "results/gate/run_metrics.h"
#include "scenarios/fingerprint.h"

namespace pb::gate {
namespace {

int severity(const std::string& status) { return status == "failed" ? 2 : status == "incorrect" ? 1 : 0; }

void add_number(nlohmann::json& into, const nlohmann::json& from, const char* key) {
  if (into.contains(key) && from.contains(key) && into[key].is_number() && from[key].is_number()) {
    if (into[key].is_number_integer() && from[key].is_number_integer()) {
      into[key] = into[key].get<int64_t>() + from[key].get<int64_t>();
    } else {
      into[key] = into[key].get<double>() + from[key].get<double>();
    }
  }
}

// A later round's fingerprint must equal the first's: the engine is deterministic, so a change
// means one round computed something else.
void check_fingerprint(nlohmann::json& run, const nlohmann::json& later, const std::string& label) {
  if (!run.contains("fingerprint") || !later.contains("fingerprint")) return;
  const auto& a = run["fingerprint"];
  const auto& b = later["fingerprint"];
  if (a.is_null()) {
    run["fingerprint"] = b;
    return;
  }
  if (b.is_null()) return;
  const std::string difference = compare_fingerprints(fingerprint_from_json(a), fingerprint_from_json(b));
  if (difference.empty() || severity(run.value("status", "ok")) > 0) return;
  run["status"] = "incorrect";
  run["incorrect_reason"] = label + " computed something else than the first round: " + difference;
}

void append_round(nlohmann::json& run, const nlohmann::json& later, const std::string& label) {
  if (run.contains("samples") && later.contains("samples")) {
    for (const auto& s : later["samples"]) run["samples"].push_back(s);
  }
  if (run.contains("repetitions") && later.contains("repetitions")) {
    for (const char* key : {"warmup", "measured", "elapsed_s"})
      add_number(run["repetitions"], later["repetitions"], key);
    run["repetitions"]["stop_reason"] = later["repetitions"].value("stop_reason", nlohmann::json("max-reached"));
  }
  check_fingerprint(run, later, label);
  const std::string status = later.value("status", "ok");
  if (severity(status) > severity(run.value("status", "ok"))) {
    run["status"] = status;
    for (const char* key : {"error", "incorrect_reason"}) {
      if (later.contains(key)) run[key] = later[key];
    }
  }
  if (later.contains("timeline")) run["timeline"] = later["timeline"];
}

// The decode bandwidth figures of run_record.cpp, from the merged median.
void recompute_derived(nlohmann::json& run) {
  if (!run.contains("derived") || !run["derived"].is_object() || !run["summary"].contains("decode.tok_s")) return;
  auto& derived = run["derived"];
  const double per_token = run.value("model", nlohmann::json::object()).value("weight_bytes_per_token", 0.0);
  const double gbps = run["summary"]["decode.tok_s"]["median"].get<double>() * per_token / 1e9;
  derived["decode_weight_gbps"] = gbps;
  const auto roofline = derived.value("copy_bandwidth_gbps", nlohmann::json());
  derived["decode_roofline_share"] = roofline.is_number() && roofline.get<double>() > 0
                                         ? nlohmann::json(gbps / roofline.get<double>())
                                         : nlohmann::json();
}

}  // namespace

ResultFile merge_rounds(const std::vector<RoundFile>& rounds) {
  if (rounds.empty()) throw UsageError("merge_rounds: no result files to merge");
  ResultFile merged = rounds.front().file;
  nlohmann::json& doc = merged.document();
  const auto schema = doc.value("schema", nlohmann::json());
  std::map<std::string, size_t> index;  // config key -> position in the merged runs
  for (size_t i = 0; i < doc["runs"].size(); ++i) {
    index[config_key(doc["runs"][i].value("config", nlohmann::json::object()))] = i;
  }
  nlohmann::json sources = nlohmann::json::array({rounds.front().label});
  for (size_t r = 1; r < rounds.size(); ++r) {
    const auto& later = rounds[r].file.document();
    if (later.value("schema", nlohmann::json()) != schema) {
      throw UsageError("cannot merge " + rounds[r].label + " into " + rounds.front().label +
                       ": their schema versions differ");
    }
    sources.push_back(rounds[r].label);
    for (const auto& run : later["runs"]) {
      const std::string key = config_key(run.value("config", nlohmann::json::object()));
      if (const auto it = index.find(key); it != index.end()) {
        append_round(doc["runs"][it->second], run, rounds[r].label);
      } else {
        index[key] = doc["runs"].size();
        doc["runs"].push_back(run);
      }
    }
  }
  for (auto& run : doc["runs"]) {
    run["summary"] = summarize_run(run, rounds.front().label);
    recompute_derived(run);
  }
  doc["merged_from"] = sources;
  return merged;
}

}  // namespace pb::gate
