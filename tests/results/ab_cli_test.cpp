// `phasebench ab` on the CPU device between two configs known to differ: one submit per
// dispatch (a host round trip per kernel) against one per prompt. B must come out faster,
// interleaved over rounds, merged, and gated as a win; the merged files follow the schema.
// On lavapipe the difference is the per-submit host round trip and timestamp readback, 15-30%
// of a tiny prefill's wall time; but the CPU "GPU" shares its cores with everything else, so
// the samples drift by 2x from one sweep process to the next on a loaded 2-core host. Many
// short rounds average the drift out better than a few long ones: 24 rounds of 2 repetitions
// (30-60 s) give a win on a quiet host. On a busy one the gate may say inconclusive, and then
// the test does what a user would: it runs again with the rounds the gate asked for (capped).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>

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
      // Skipping the dead LM heads of prompt tokens leaves less compute per dispatch, so the
      // submission overhead the test detects is a larger share (about +35% on lavapipe, against
      // about +20% with them), clear of the noise of a loaded 2-core machine.
      {"base", {{"prefill", "decode-loop"}, {"barriers", "global"}, {"profile", "phase"}, {"skip_dead_work", true}}},
      {"axes", nlohmann::json::object()},
      {"repetitions", {{"warmup", 1}, {"min", 3}, {"max", 5}, {"max_rel_ci", 0.05}, {"max_seconds", 10}}}};
  return write_json(dir, "scenario.json", scenario);
}

struct AbOutcome {
  int status;
  nlohmann::json report;  // the gate's JSON
};

AbOutcome run_ab(const fs::path& scenario, const fs::path& out, int rounds) {
  const auto log = out.string() + ".log";
  const auto r =
      run_binary("ab " + scenario.string() + " --a-set submit=per-dispatch --b-set submit=per-prompt" + " --rounds " +
                     std::to_string(rounds) + " --repetitions 2 --warmup 1 --json --out " + out.string() + " 2>" + log,
                 false);
  EXPECT_NE(r.status, 2) << r.out << read_text(log);
  try {
    return {r.status, nlohmann::json::parse(r.out)};
  } catch (const nlohmann::json::exception&) {
    ADD_FAILURE() << "not JSON: " << r.out << read_text(log);
    return {r.status, nlohmann::json::object()};
  }
}

TEST(AbCli, PerPromptSubmissionBeatsPerDispatch) {
  const auto dir = fresh_dir("ab-cli");
  const auto scenario = write_scenario(dir);
  const auto out = dir / "out";
  AbOutcome ab = run_ab(scenario, out, 24);
  ASSERT_EQ(ab.report["runs"].size(), 1u) << ab.report.dump(1);
  const auto& run = ab.report["runs"][0];
  EXPECT_FALSE(run["config"].contains("submit"));  // matched with the overridden axis set aside
  const auto& tok_s = run["metrics"]["prefill.tok_s"];
  EXPECT_GT(tok_s["cand_median"].get<double>(), tok_s["base_median"].get<double>()) << run.dump(1);
  EXPECT_EQ(tok_s["n_base"], 48);  // 24 rounds x 2 repetitions, merged
  EXPECT_EQ(tok_s["n_cand"], 48);
  ASSERT_NE(run["verdict"], "regression") << run["reason"];

  // Every round's file, both merged files and the report were written and follow their schemas.
  for (const char* name : {"a-round1.json", "b-round1.json", "a-round24.json", "b-round24.json"}) {
    EXPECT_TRUE(fs::exists(out / name)) << name;
  }
  EXPECT_EQ(schema_errors((out / "a.json").string(), "results/schema/result.schema.json"), "");
  EXPECT_EQ(schema_errors((out / "b.json").string(), "results/schema/result.schema.json"), "");
  EXPECT_EQ(schema_errors((out / "gate.json").string(), "results/schema/gate.schema.json"), "");
  const auto merged = nlohmann::json::parse(read_text(out / "b.json"));
  EXPECT_EQ(merged["runs"][0]["config"]["submit"], "per-prompt");
  EXPECT_EQ(merged["runs"][0]["summary"]["prefill.tok_s"]["n"], 48);
  EXPECT_EQ(merged["merged_from"].size(), 24u);

  if (run["verdict"] != "win") {
    // Inconclusive: the gate says how many repetitions per side would likely settle it.
    ASSERT_EQ(run["verdict"], "inconclusive") << run["reason"];
    ASSERT_TRUE(tok_s["more_repetitions"].is_number_integer()) << run.dump(1);
    const int needed = tok_s["n_base"].get<int>() + tok_s["more_repetitions"].get<int>();
    // The estimate is a lower bound (repetitions_to_resolve.h): ask for half as much again.
    const int rounds = std::clamp((3 * needed / 2 + 1) / 2, 24, 48);
    std::cerr << "first ab: " << run["reason"].get<std::string>() << "; again with " << rounds << " rounds\n";
    ab = run_ab(scenario, dir / "out-again", rounds);
    ASSERT_EQ(ab.report["runs"].size(), 1u);
  }
  const auto& final_run = ab.report["runs"][0];
  EXPECT_GT(final_run["metrics"]["prefill.tok_s"]["improvement"].get<double>(), 0.0);
  EXPECT_EQ(final_run["verdict"], "win") << final_run["reason"];
  EXPECT_EQ(ab.status, 0);
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
