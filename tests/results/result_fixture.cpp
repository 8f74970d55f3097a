#include "result_fixture.h"

#include <fstream>
#include <sstream>

#include "results/gate/run_metrics.h"

namespace pb::test {
namespace {

nlohmann::json counters() {
  nlohmann::json c = nlohmann::json::object();
  for (const char* k : {"command_buffers", "submits", "host_waits", "dispatches", "pipeline_binds", "descriptor_writes",
                        "descriptor_set_binds", "barrier_commands", "memory_barriers", "buffer_barriers",
                        "execution_barriers", "timestamps"}) {
    c[k] = 1;
  }
  return c;
}

nlohmann::json stage(double wall_ms, int tokens) {
  return {{"tokens", tokens},
          {"wall_ms", wall_ms},
          {"record_ms", 0.1},
          {"submit_ms", 0.1},
          {"wait_ms", wall_ms * 0.5},
          {"gpu_busy_ms", wall_ms * 0.8},
          {"phases_ms", {{"attn_qkv", wall_ms * 0.3}}},
          {"counters", counters()}};
}

}  // namespace

std::vector<double> spread_values(double median, double spread, int n, int phase) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    // A permutation of evenly spaced offsets in [-1, 1]: the order is not sorted, the set is symmetric.
    const int k = (i * 7 + phase) % n;
    const double offset = n == 1 ? 0.0 : 2.0 * k / (n - 1) - 1.0;
    v.push_back(median * (1.0 + spread * offset));
  }
  return v;
}

nlohmann::json make_run(const RunSpec& spec) {
  nlohmann::json config = {{"model", "tiny-dense"},
                           {"weights", "q4_k"},
                           {"prompt_tokens", 12},
                           {"decode_tokens", 0},
                           {"seed", 1},
                           {"submit", "per-layer"},
                           {"prefill", "decode-loop"},
                           {"num_cols", "spec"},
                           {"chunk_cols", 8},
                           {"barriers", "global"},
                           {"double_buffer", false},
                           {"skip_dead_work", false},
                           {"descriptors", "persistent"},
                           {"profile", "phase"},
                           {"subgroup", "default"},
                           {"coopmat", true}};
  config.update(spec.config_overrides);
  nlohmann::json samples = nlohmann::json::array();
  for (double tok_s : spec.tok_s) {
    const double wall = 12.0 / tok_s * 1000.0;
    samples.push_back({{"metrics",
                        {{"prefill.tok_s", tok_s},
                         {"prefill.wall_ms", wall},
                         {"prefill.gpu_busy_ms", wall * 0.8},
                         {"prefill.gap_ms", wall * 0.2},
                         {"prefill.phase.attn_qkv_ms", wall * 0.3},
                         {"ttft_ms", wall}}},
                       {"prefill", stage(wall, 12)},
                       {"decode", stage(0.0, 0)}});
  }
  nlohmann::json run = {{"config", config},
                        {"status", spec.status},
                        {"error", spec.status == "failed" ? nlohmann::json("the device was lost") : nlohmann::json()},
                        {"unsafe", config["barriers"] == "none"},
                        {"model",
                         {{"name", "tiny-dense"},
                          {"architecture", "dense"},
                          {"layers", 2},
                          {"weight_bytes", 1000},
                          {"weight_bytes_per_token", 1000}}},
                        {"repetitions",
                         {{"warmup", 1},
                          {"measured", spec.tok_s.size()},
                          {"stop_reason", "max-reached"},
                          {"headline", "prefill.tok_s"},
                          {"elapsed_s", 1.0}}},
                        {"pipelines", {{"created", 3}, {"create_ms", 1.0}}},
                        {"samples", samples},
                        {"derived", {{"copy_bandwidth_gbps", nullptr}}},
                        {"timeline", nlohmann::json::object()}};
  run["summary"] = gate::summarize_run(run, "fixture");
  if (spec.status == "incorrect") run["incorrect_reason"] = "generated token 0 differs from the group's";
  run["fingerprint"] = spec.with_fingerprint ? nlohmann::json{{"tokens", spec.tokens},
                                                              {"margins", std::vector<double>(spec.tokens.size(), 1.0)},
                                                              {"logits_sum", 1.0},
                                                              {"logits_l2", spec.logits_l2}}
                                             : nlohmann::json();
  return run;
}

nlohmann::json make_result(const std::vector<nlohmann::json>& runs, const std::string& device,
                           const std::string& commit) {
  return {
      {"schema", "phasebench.result/1"},
      {"created", "2025-01-01T00:00:00Z"},
      {"tool",
       {{"name", "phasebench"},
        {"version", "0.1.0"},
        {"git_commit", commit},
        {"build_type", "Release"},
        {"compiler", "test"},
        {"glslang", "test"},
        {"coopmat_shaders", false}}},
      {"device",
       {{"name", device},
        {"type", "cpu"},
        {"vendor", "Mesa"},
        {"driver_name", "llvmpipe"},
        {"driver_info", "Mesa 25"},
        {"api_version", "1.4"},
        {"timestamp_period_ns", 1.0},
        {"timestamp_valid_bits", 64},
        {"subgroup_size", 8},
        {"min_subgroup_size", 8},
        {"max_subgroup_size", 8},
        {"features", nlohmann::json::object()},
        {"copy_bandwidth_gbps", nullptr}}},
      {"host", {{"os", "Linux"}, {"kernel", "6"}, {"cpu", "test"}, {"cores", 2}, {"env", nlohmann::json::object()}}},
      {"scenario", {{"name", "fixture"}, {"base", nlohmann::json::object()}, {"axes", nlohmann::json::object()}}},
      {"runs", runs}};
}

std::filesystem::path write_json(const std::filesystem::path& dir, const std::string& name, const nlohmann::json& doc) {
  const auto path = dir / name;
  std::ofstream(path) << doc.dump(1);
  return path;
}

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("phasebench-results-test-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace pb::test
