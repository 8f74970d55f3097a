// `phasebench ab` on the CPU device between two configs known to differ: one submit per
// dispatch (a host round trip per kernel) against one per prompt. B must come out faster,
// interleaved over rounds, merged, and gated as a win; the merged files follow the schema.
// On lavapipe the difference is the per-submit host round trip and timestamp readback, about
// 20% of a tiny prefill's wall time; the CPU "GPU" shares cores with everything else, so its
// samples are noisy (CV ~20% on a loaded 2-core host) and drift from one process to the next.
// Many short rounds (30 of 2 repetitions, under a minute) average the drift out better than a
// few long ones.
#include <gtest/gtest.h>

#include <fstream>

#include "binary_run.h"
#include "result_fixture.h"

namespace pb::test {
namespace {

namespace fs = std::filesystem;

fs::path write_scenario(const fs::path& dir) {
  const nlohmann::json scenario = {
      {"name", "ab-test"},
      {"description", "tiny prefill for the ab test"},
      {"model", "tiny-dense"},
      {"weights", "q4_k"},
      {"workload", {{"prompt_tokens", 8}, {"decode_tokens", 0}}},
      {"base", {{"prefill", "decode-loop"}, {"barriers", "global"}, {"profile", "phase"}}},
      {"axes", nlohmann::json::object()},
      {"repetitions", {{"warmup", 1}, {"min", 3}, {"max", 5}, {"max_rel_ci", 0.05}, {"max_seconds", 10}}}};
  return write_json(dir, "scenario.json", scenario);
}

TEST(AbCli, PerPromptSubmissionBeatsPerDispatch) {
  const auto dir = fresh_dir("ab-cli");
  const auto scenario = write_scenario(dir);
  const auto out = dir / "out";
  const auto log = dir / "ab.log";
  const auto r = run_binary("ab " + scenario.string() + " --a-set submit=per-dispatch --b-set submit=per-prompt " +
                                "--rounds 30 --repetitions 2 --warmup 1 --json --out " + out.string() + " 2>" +
                                log.string(),
                            false);
  ASSERT_NE(r.status, 2) << r.out << read_text(log);
  const auto report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["runs"].size(), 1u) << r.out;
  const auto& run = report["runs"][0];
  EXPECT_FALSE(run["config"].contains("submit"));  // matched with the overridden axis set aside
  const auto& tok_s = run["metrics"]["prefill.tok_s"];
  EXPECT_GT(tok_s["cand_median"].get<double>(), tok_s["base_median"].get<double>()) << run.dump(1);
  EXPECT_EQ(tok_s["n_base"], 60);  // 30 rounds x 2 repetitions, merged
  EXPECT_EQ(tok_s["n_cand"], 60);
  EXPECT_NE(run["verdict"], "regression");
  EXPECT_EQ(run["verdict"], "win") << run["reason"];
  EXPECT_EQ(r.status, 0);

  // Every round's file, both merged files and the report were written and follow their schemas.
  for (const char* name : {"a-round1.json", "b-round1.json", "a-round30.json", "b-round30.json"}) {
    EXPECT_TRUE(fs::exists(out / name)) << name;
  }
  EXPECT_EQ(schema_errors((out / "a.json").string(), "result.schema.json"), "");
  EXPECT_EQ(schema_errors((out / "b.json").string(), "result.schema.json"), "");
  EXPECT_EQ(schema_errors((out / "gate.json").string(), "gate.schema.json"), "");
  const auto merged = nlohmann::json::parse(read_text(out / "b.json"));
  EXPECT_EQ(merged["runs"][0]["config"]["submit"], "per-prompt");
  EXPECT_EQ(merged["runs"][0]["summary"]["prefill.tok_s"]["n"], 60);
  EXPECT_EQ(merged["merged_from"].size(), 30u);
}

TEST(AbCli, BadOverridesAreUsageErrorsBeforeAnySweep) {
  const auto dir = fresh_dir("ab-cli-bad");
  const auto scenario = write_scenario(dir);
  auto r = run_binary("ab " + scenario.string() + " --a-set submit --rounds 1 --out " + (dir / "o").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("axis=value"), std::string::npos) << r.out;
  r = run_binary("ab " + scenario.string() + " --rounds 0");
  EXPECT_EQ(r.status, 2) << r.out;
  r = run_binary("ab " + (dir / "missing.json").string() + " --rounds 1 --out " + (dir / "o").string());
  EXPECT_EQ(r.status, 2) << r.out;
  // A value the sweep itself rejects: the subprocess exits 2, and so does ab.
  r = run_binary("ab " + scenario.string() + " --a-set submit=sideways --rounds 1 --out " + (dir / "o").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("sideways"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pb::test
