#include "scenarios/fingerprint_check.h"

#include <map>
#include <string>
#include <vector>

#include "scenarios/fingerprint.h"

namespace pb {
namespace {

std::string group_key(const nlohmann::json& config) {
  return config.value("model", "") + "|" + config.value("gguf", "") + "|" + config.value("weights", "") +
         "|" + std::to_string(config.value("seed", 0)) + "|" +
         std::to_string(config.value("prompt_tokens", 0)) + "|" +
         std::to_string(config.value("decode_tokens", 0));
}

bool on_int8_inputs(const nlohmann::json& run) {
  return run["config"].value("dmmv_activations", "float") == "int8";
}

// Runs on int8 DMMV inputs compute an approximation: pairs involving one are compared within
// its wider bounds, so they are still checked against the float variants of their group.
FingerprintTolerance tolerance_between(const nlohmann::json& a, const nlohmann::json& b) {
  return on_int8_inputs(a) || on_int8_inputs(b) ? kInt8FingerprintTolerance : FingerprintTolerance{};
}

}  // namespace

void check_fingerprints(nlohmann::json& runs) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto& run = runs[i];
    if (run["status"] == "incorrect") run["status"] = "ok";  // re-judged below
    run.erase("incorrect_reason");
    if (run["status"] != "ok" || run["fingerprint"].is_null()) continue;
    groups[group_key(run["config"])].push_back(i);
  }
  for (const auto& [key, members] : groups) {
    std::vector<Fingerprint> prints;
    for (size_t i : members) prints.push_back(fingerprint_from_json(runs[i]["fingerprint"]));
    // The answer: the fingerprint most others agree with (the earliest on a tie). Runs without
    // barriers never vote, since their output may legitimately be wrong.
    size_t best = 0;
    int best_votes = -1;
    for (size_t a = 0; a < prints.size(); ++a) {
      if (runs[members[a]].value("unsafe", false)) continue;
      int votes = 0;
      for (size_t b = 0; b < prints.size(); ++b) {
        votes += compare_fingerprints(prints[a], prints[b], tolerance_between(runs[members[a]], runs[members[b]])).empty();
      }
      if (votes > best_votes) {
        best = a;
        best_votes = votes;
      }
    }
    if (best_votes < 0) continue;  // only unsafe runs: nothing to compare against
    for (size_t a = 0; a < prints.size(); ++a) {
      const std::string difference =
          compare_fingerprints(prints[a], prints[best], tolerance_between(runs[members[a]], runs[members[best]]));
      if (difference.empty()) continue;
      auto& run = runs[members[a]];
      run["status"] = "incorrect";
      run["incorrect_reason"] = "differs from the sweep's consensus output (" +
                                std::to_string(best_votes) + " of " + std::to_string(prints.size()) +
                                " variants agree on it): " + difference;
    }
  }
}

}  // namespace pb
