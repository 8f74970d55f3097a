// Synthetic result files (schema phasebench.result/1) for the gate, merge and history tests:
// every field the schema requires, with samples whose medians and spread the test chooses.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pb::test {

// `n` values around `median` with a relative spread of ±`spread`, deterministic and symmetric,
// so their median is exactly `median` for odd n.
std::vector<double> spread_values(double median, double spread, int n, int phase = 0);

struct RunSpec {
  nlohmann::json config_overrides = nlohmann::json::object();  // merged into a default config
  std::vector<double> tok_s;                                   // prefill.tok_s per sample
  std::string status = "ok";                                   // ok, incorrect, failed
  std::vector<uint32_t> tokens = {7};                          // the fingerprint's tokens
  double logits_l2 = 10.0;
  bool with_fingerprint = true;
};

// A run entry: prefill.tok_s from the spec, prefill.wall_ms = 12 tokens / tok_s, gpu_busy and a
// phase in proportion, the summary computed from them.
nlohmann::json make_run(const RunSpec& spec);

// A whole result file around `runs`.
nlohmann::json make_result(const std::vector<nlohmann::json>& runs, const std::string& device = "llvmpipe (test)",
                           const std::string& commit = "abc1234");

// Writes `doc` to `dir/name` and returns the path.
std::filesystem::path write_json(const std::filesystem::path& dir, const std::string& name, const nlohmann::json& doc);

// A fresh, empty folder under the test temp dir, named after the running test.
std::filesystem::path fresh_dir(const std::string& name);

std::string read_text(const std::filesystem::path& path);

}  // namespace pb::test
