#include "scenarios/merge_results.h"

#include <algorithm>
#include <map>
#include <memory>

#include "harness/errors.h"
#include "scenarios/fingerprint_check.h"

namespace pb {

ResultFile merge_result_files(const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw UsageError("merge needs at least one result file");
  std::unique_ptr<ResultFile> merged;
  std::map<size_t, std::string> seen;  // run index -> file
  for (const auto& path : inputs) {
    ResultFile file = ResultFile::load(path);
    auto scenario = file.document()["scenario"];
    scenario.erase("shard");
    if (!merged) {
      merged = std::make_unique<ResultFile>(file);
      merged->document()["scenario"] = scenario;
      merged->document()["runs"] = nlohmann::json::array();
    } else {
      const auto& first = merged->document();
      if (first["scenario"].value("source", nlohmann::json()) != scenario.value("source", nlohmann::json())) {
        throw UsageError(path + ": /scenario/source differs from " + inputs.front() +
                         "'s; merge joins shards of one scenario only");
      }
      if (first["device"]["name"] != file.document()["device"]["name"]) {
        throw UsageError(path + ": /device/name is " + file.document()["device"]["name"].dump() + ", not " +
                         first["device"]["name"].dump() + "; the shards of a sweep must run on one kind of device");
      }
    }
    for (const auto& run : file.runs()) {
      if (!run.contains("index")) {
        throw UsageError(path + ": /runs has a run without /index; only sweep files can be merged");
      }
      const size_t index = run["index"];
      if (seen.count(index)) {
        throw UsageError(path + ": run " + std::to_string(index) + " is also in " + seen[index] +
                         "; shards must not overlap");
      }
      seen[index] = path;
      merged->add_run(run);
    }
  }
  auto& runs = merged->document()["runs"];
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a["index"] < b["index"]; });
  check_fingerprints(runs);
  return std::move(*merged);
}

}  // namespace pb
