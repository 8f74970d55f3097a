// Sweeps: result files written as runs finish and valid against the schema, resume, shards and
// merge, a failing run that does not stop the sweep, consensus fingerprints, and trace export.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "harness/errors.h"
#include "harness/pipeline.h"
#include "harness/trace_export.h"
#include "results/result_file.h"
#include "scenarios/fingerprint_check.h"
#include "scenarios/merge_results.h"
#include "scenarios/sweep.h"
#include "tests/support/gpu_test.h"
#include "tests/support/schema_check.h"

namespace pb::test {
namespace {

namespace fs = std::filesystem;

const char* kScenario = R"({
  "name": "sweep-test", "model": "tiny-dense",
  "workload": {"prompt_tokens": 4, "decode_tokens": 2},
  "base": {"profile": "phase", "prefill": "batched", "chunk_cols": 4},
  "axes": {"submit": ["per-layer", "per-prompt"], "barriers": ["global", "ledger"]},
  "repetitions": {"warmup": 0, "min": 2, "max": 2}
})";

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("phasebench-sweep-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

class SweepTest : public GpuTest {
 protected:
  SweepOutcome sweep(const Scenario& s, const fs::path& out, std::optional<Shard> shard = {}, bool resume = false) {
    static PipelineSet pipelines(device(), nullptr);
    SweepOptions o;
    o.out = out;
    o.shard = shard;
    o.resume = resume;
    return run_sweep(device(), pipelines, transfer(), s, o);
  }
};

TEST_F(SweepTest, WritesAValidFileResumesAndShardsMergeBack) {
  const Scenario s = parse_scenario(kScenario, "sweep-test.json");
  const fs::path dir = temp_dir();
  const SweepOutcome full = sweep(s, dir / "full.json");
  EXPECT_EQ(full.runs, 4u);
  EXPECT_EQ(full.ok, 4u);
  EXPECT_EQ(schema_errors((dir / "full.json").string(), "results/schema/result.schema.json"), "");
  const ResultFile file = ResultFile::load(dir / "full.json");
  ASSERT_EQ(file.runs().size(), 4u);
  for (const auto& run : file.runs()) {
    EXPECT_EQ(run["samples"].size(), 2u);
    EXPECT_EQ(run["status"], "ok");
  }

  // Resume: nothing left to run.
  const SweepOutcome resumed = sweep(s, dir / "full.json", {}, true);
  EXPECT_EQ(resumed.skipped, 4u);
  EXPECT_EQ(ResultFile::load(dir / "full.json").runs(), file.runs());

  // Shards partition the runs, and merge joins them back.
  const SweepOutcome a = sweep(s, dir / "a.json", Shard{1, 2});
  const SweepOutcome b = sweep(s, dir / "b.json", Shard{2, 2});
  EXPECT_EQ(a.runs + b.runs, 4u);
  const ResultFile merged = merge_result_files({(dir / "a.json").string(), (dir / "b.json").string()});
  ASSERT_EQ(merged.runs().size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(merged.runs()[i]["index"], i);
    EXPECT_EQ(merged.runs()[i]["config"], file.runs()[i]["config"]);
  }
  EXPECT_THROW(merge_result_files({(dir / "a.json").string(), (dir / "a.json").string()}), UsageError);

  // A resume of another scenario is refused.
  Scenario other = s;
  other.source["name"] = "other";
  EXPECT_THROW(sweep(other, dir / "full.json", {}, true), UsageError);

  // Trace export: microsecond slices, strictly nested per track, named tracks.
  const nlohmann::json trace = chrome_trace(file.runs()[0], file.document()["device"]);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
  std::set<std::string> names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") {
      names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0.0);
    tracks[{e["pid"], e["tid"]}].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
  }
  EXPECT_TRUE(names.count("CPU (host)"));
  EXPECT_TRUE(names.count("phases"));
  EXPECT_TRUE(names.count("command buffers"));
  EXPECT_GE(tracks.size(), 3u);
  for (auto& [track, slices] : tracks) {
    // Strict nesting: any two slices are disjoint or one contains the other.
    for (size_t i = 0; i < slices.size(); ++i) {
      for (size_t j = i + 1; j < slices.size(); ++j) {
        const auto [b1, e1] = slices[i];
        const auto [b2, e2] = slices[j];
        const double eps = 1e-3;  // a nanosecond of rounding
        const bool disjoint = e1 <= b2 + eps || e2 <= b1 + eps;
        const bool nested = (b1 <= b2 + eps && e2 <= e1 + eps) || (b2 <= b1 + eps && e1 <= e2 + eps);
        ASSERT_TRUE(disjoint || nested) << "track " << track.first << "/" << track.second << ": [" << b1
                                        << ", " << e1 << ") and [" << b2 << ", " << e2 << ")";
      }
    }
  }
  fs::remove_all(dir);
}

TEST_F(SweepTest, AFailingRunIsRecordedAndTheSweepGoesOn) {
  const uint32_t impossible = device().info().max_subgroup_size * 4;
  const Scenario s = parse_scenario(R"({"name": "fails", "model": "tiny-dense",
      "workload": {"prompt_tokens": 3, "decode_tokens": 1},
      "axes": {"subgroup": ["default", ")" + std::to_string(impossible) + R"("]},
      "repetitions": {"warmup": 0, "min": 1, "max": 1}})", "fails.json");
  const fs::path dir = temp_dir();
  const SweepOutcome outcome = sweep(s, dir / "fails.json");
  EXPECT_EQ(outcome.ok, 1u);
  EXPECT_EQ(outcome.failed, 1u);
  const ResultFile file = ResultFile::load(dir / "fails.json");
  ASSERT_EQ(file.runs().size(), 2u);
  EXPECT_EQ(file.runs()[1]["status"], "failed");
  EXPECT_NE(file.runs()[1]["error"].get<std::string>().find("subgroup size"), std::string::npos);
  EXPECT_EQ(schema_errors((dir / "fails.json").string(), "results/schema/result.schema.json"), "");
  fs::remove_all(dir);
}

TEST(FingerprintConsensus, TheMinorityIsMarkedIncorrect) {
  auto run = [](std::vector<uint32_t> tokens, double l2) {
    return nlohmann::json{{"status", "ok"},
                          {"unsafe", false},
                          {"config", {{"model", "m"}, {"weights", "w"}, {"seed", 1}, {"prompt_tokens", 4}, {"decode_tokens", 2}}},
                          {"fingerprint", {{"tokens", tokens}, {"margins", {1.0, 1.0, 1.0}}, {"logits_sum", 0.0}, {"logits_l2", l2}}}};
  };
  nlohmann::json runs = nlohmann::json::array({run({1, 2, 3}, 10.0), run({1, 2, 3}, 10.001), run({1, 9, 9}, 10.0),
                                               run({1, 2, 3}, 12.0)});
  check_fingerprints(runs);
  EXPECT_EQ(runs[0]["status"], "ok");
  EXPECT_EQ(runs[1]["status"], "ok");
  EXPECT_EQ(runs[2]["status"], "incorrect");
  EXPECT_NE(runs[2]["incorrect_reason"].get<std::string>().find("generated token 1"), std::string::npos);
  EXPECT_EQ(runs[3]["status"], "incorrect");  // same tokens, logits off by 20%
  // Near-ties may flip: a margin below the tolerance is not an error.
  runs[2]["fingerprint"]["margins"] = {1.0, 0.001, 1.0};
  check_fingerprints(runs);
  EXPECT_EQ(runs[2]["status"], "ok");
}

TEST(FingerprintConsensus, Int8RunsAreCheckedAgainstFloatWithinTheirWiderBounds) {
  auto run = [](const char* activations, std::vector<uint32_t> tokens, std::vector<float> margins, double l2) {
    return nlohmann::json{{"status", "ok"},
                          {"unsafe", false},
                          {"config", {{"model", "m"}, {"weights", "w"}, {"seed", 1}, {"prompt_tokens", 4},
                                      {"decode_tokens", 2}, {"dmmv_activations", activations}}},
                          {"fingerprint", {{"tokens", tokens}, {"margins", margins}, {"logits_sum", 0.0}, {"logits_l2", l2}}}};
  };
  // A flip at a margin of 0.2 and logits 1% apart: the int8 run agrees with the float ones.
  nlohmann::json runs = nlohmann::json::array({run("float", {1, 2, 3}, {1.0, 0.2, 1.0}, 10.0),
                                               run("float", {1, 2, 3}, {1.0, 0.2, 1.0}, 10.0),
                                               run("int8", {1, 7, 3}, {1.0, 0.2, 1.0}, 10.1)});
  check_fingerprints(runs);
  EXPECT_EQ(runs[2]["status"], "ok");
  // The same flip between two float runs is an error.
  runs[2]["config"]["dmmv_activations"] = "float";
  check_fingerprints(runs);
  EXPECT_EQ(runs[2]["status"], "incorrect");
  // A flip at a clear margin, or logits 5% apart, is an error for int8 too.
  runs[0]["fingerprint"]["margins"] = runs[1]["fingerprint"]["margins"] = {1.0, 0.6, 1.0};
  runs[2] = run("int8", {1, 7, 3}, {1.0, 0.6, 1.0}, 10.0);
  check_fingerprints(runs);
  EXPECT_EQ(runs[2]["status"], "incorrect");
  runs[2] = run("int8", {1, 2, 3}, {1.0, 0.2, 1.0}, 10.5);
  check_fingerprints(runs);
  EXPECT_EQ(runs[2]["status"], "incorrect");
}

TEST(AtomicWrite, AFailedWriteLeavesThePreviousFileAlone) {
  const fs::path dir = temp_dir();
  const fs::path file = dir / "result.json";
  write_file_atomically(file, "{\"first\": true}");
  // A path whose folder is a regular file cannot be written.
  EXPECT_THROW(write_file_atomically(file / "nested.json", "{}"), std::exception);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"first\": true}");
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "leftover " << e.path();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pb::test
