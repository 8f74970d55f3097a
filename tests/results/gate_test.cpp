// The gate on synthetic result files: every verdict, the matching of runs by config, and the
// bad inputs it must refuse with a message that says what to do.
#include "results/gate/gate.h"

#include <gtest/gtest.h>

#include <sstream>

#include "harness/errors.h"
#include "result_fixture.h"
#include "results/gate/gate_json.h"
#include "results/gate/gate_markdown.h"

namespace pb::test {
namespace {

using gate::GateOptions;
using gate::GateReport;

ResultFile file_of(const nlohmann::json& doc, const std::string& name) {
  const auto dir = fresh_dir("gate-" + name);
  return ResultFile::load(write_json(dir, name + ".json", doc));
}

GateReport gate_docs(const nlohmann::json& base, const nlohmann::json& cand, const GateOptions& o = {}) {
  return gate::gate_results(file_of(base, "base"), "base.json", file_of(cand, "cand"), "cand.json", o);
}

GateReport gate_one(const RunSpec& base, const RunSpec& cand, const GateOptions& o = {}) {
  return gate_docs(make_result({make_run(base)}), make_result({make_run(cand)}), o);
}

RunSpec spec(double median, double spread, int n, int phase = 0) {
  RunSpec s;
  s.tok_s = spread_values(median, spread, n, phase);
  return s;
}

TEST(Gate, ClearSpeedupIsAWinOnEveryDerivedTime) {
  const auto r = gate_one(spec(100, 0.005, 11), spec(110, 0.005, 11, 3));
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].verdict, "win") << r.runs[0].reason;
  EXPECT_EQ(r.runs[0].headline, "prefill.tok_s");
  EXPECT_EQ(r.runs[0].metrics.front().name, "prefill.tok_s");  // the headline comes first
  for (const auto& m : r.runs[0].metrics) {
    // Rates go up and times go down: both are improvements (positive = better).
    EXPECT_NEAR(m.result.improvement, 0.10, 1e-9) << m.name;
    EXPECT_EQ(m.higher_is_better, m.name == "prefill.tok_s") << m.name;
    EXPECT_EQ(stats::to_string(m.result.verdict), std::string("win")) << m.name;
  }
  EXPECT_EQ(r.runs[0].metrics.size(), 6u);
  EXPECT_EQ(gate::exit_status(r), 0);
  EXPECT_EQ(r.summary().at("win"), 1);
}

TEST(Gate, ClearSlowdownIsARegressionAndFailsTheGate) {
  const auto r = gate_one(spec(100, 0.005, 11), spec(95, 0.005, 11, 2));
  EXPECT_EQ(r.runs[0].verdict, "regression") << r.runs[0].reason;
  EXPECT_EQ(gate::exit_status(r), 1);
}

TEST(Gate, TinyDifferenceWithTightIntervalIsFlat) {
  const auto r = gate_one(spec(100, 0.002, 21), spec(100.1, 0.002, 21, 5));
  EXPECT_EQ(r.runs[0].verdict, "flat") << r.runs[0].reason;
  EXPECT_EQ(gate::exit_status(r), 0);
  EXPECT_FALSE(r.runs[0].metrics.front().more_repetitions);
}

TEST(Gate, NoisyDifferenceIsInconclusiveWithAnEstimateOfRepetitions) {
  const auto r = gate_one(spec(100, 0.04, 5), spec(102, 0.04, 5, 1));
  EXPECT_EQ(r.runs[0].verdict, "inconclusive") << r.runs[0].reason;
  const auto& m = r.runs[0].metrics.front();
  ASSERT_TRUE(m.more_repetitions);
  EXPECT_GE(*m.more_repetitions, 1);
  EXPECT_NE(r.runs[0].reason.find("repetitions per side"), std::string::npos) << r.runs[0].reason;
  EXPECT_EQ(gate::exit_status(r), 0);  // undecided is not a regression
}

TEST(Gate, TooFewSamplesIsInconclusiveAndSaysHowManyMore) {
  const auto r = gate_one(spec(100, 0.01, 2), spec(120, 0.01, 2));
  EXPECT_EQ(r.runs[0].verdict, "inconclusive");
  ASSERT_TRUE(r.runs[0].metrics.front().more_repetitions);
  EXPECT_EQ(*r.runs[0].metrics.front().more_repetitions, 1);
}

TEST(Gate, DifferentFingerprintsAreIncorrectWhateverTheSpeed) {
  RunSpec cand = spec(150, 0.005, 11);
  cand.tokens = {9};
  const auto r = gate_one(spec(100, 0.005, 11), cand);
  EXPECT_EQ(r.runs[0].verdict, "incorrect");
  EXPECT_NE(r.runs[0].reason.find("outputs differ"), std::string::npos) << r.runs[0].reason;
  EXPECT_EQ(gate::exit_status(r), 1);
  EXPECT_FALSE(r.runs[0].metrics.empty());  // the numbers are still reported
}

TEST(Gate, LogitsBeyondToleranceAreIncorrect) {
  RunSpec cand = spec(100, 0.005, 11);
  cand.logits_l2 = 10.5;
  EXPECT_EQ(gate_one(spec(100, 0.005, 11), cand).runs[0].verdict, "incorrect");
}

TEST(Gate, RunMarkedIncorrectByItsSweepIsIncorrect) {
  RunSpec cand = spec(100, 0.005, 11);
  cand.status = "incorrect";
  const auto r = gate_one(spec(100, 0.005, 11), cand);
  EXPECT_EQ(r.runs[0].verdict, "incorrect");
  EXPECT_NE(r.runs[0].reason.find("marked incorrect"), std::string::npos) << r.runs[0].reason;
}

TEST(Gate, UnsafeRunsNeverGateNorFail) {
  RunSpec base = spec(100, 0.005, 11), cand = spec(80, 0.005, 11);
  base.config_overrides = cand.config_overrides = {{"barriers", "none"}};
  cand.tokens = {3};  // racing without barriers may well compute garbage: still not a failure
  const auto r = gate_one(base, cand);
  EXPECT_EQ(r.runs[0].verdict, "unsafe");
  EXPECT_EQ(gate::exit_status(r), 0);
  EXPECT_EQ(r.summary().at("unsafe"), 1);
}

TEST(Gate, FailedRunFailsTheGate) {
  RunSpec cand = spec(100, 0.005, 3);
  cand.status = "failed";
  cand.with_fingerprint = false;
  const auto r = gate_one(spec(100, 0.005, 11), cand);
  EXPECT_EQ(r.runs[0].verdict, "failed");
  EXPECT_NE(r.runs[0].reason.find("the device was lost"), std::string::npos) << r.runs[0].reason;
  EXPECT_EQ(gate::exit_status(r), 1);
}

TEST(Gate, RunsPairByConfigNotByOrderAndUnpairedOnesAreListed) {
  RunSpec a1 = spec(100, 0.005, 11), a2 = spec(100, 0.005, 11), a3 = spec(100, 0.005, 11);
  a1.config_overrides = {{"submit", "per-layer"}};
  a2.config_overrides = {{"submit", "per-prompt"}};
  a3.config_overrides = {{"submit", "per-dispatch"}};
  RunSpec b2 = spec(90, 0.005, 11), b1 = spec(110, 0.005, 11), b4 = spec(100, 0.005, 11);
  b1.config_overrides = a1.config_overrides;
  b2.config_overrides = a2.config_overrides;
  b4.config_overrides = {{"submit", "per-token"}};
  const auto r = gate_docs(make_result({make_run(a1), make_run(a2), make_run(a3)}),
                           make_result({make_run(b2), make_run(b4), make_run(b1)}));
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].config["submit"], "per-layer");
  EXPECT_EQ(r.runs[0].verdict, "win");
  EXPECT_EQ(r.runs[1].config["submit"], "per-prompt");
  EXPECT_EQ(r.runs[1].verdict, "regression");
  ASSERT_EQ(r.only_in_base.size(), 1u);
  EXPECT_EQ(r.only_in_base[0]["submit"], "per-dispatch");
  ASSERT_EQ(r.only_in_candidate.size(), 1u);
  EXPECT_EQ(r.only_in_candidate[0]["submit"], "per-token");
}

TEST(Gate, NoRunsInCommonIsBadInputListingEachSidesConfigs) {
  RunSpec a = spec(100, 0.005, 5), b = spec(100, 0.005, 5);
  a.config_overrides = {{"submit", "per-layer"}};
  b.config_overrides = {{"submit", "per-prompt"}, {"prompt_tokens", 32}};
  try {
    gate_docs(make_result({make_run(a)}), make_result({make_run(b)}));
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no runs in common"), std::string::npos) << m;
    EXPECT_NE(m.find("base.json has 1 run(s):\n    prompt_tokens=12, submit=per-layer"), std::string::npos) << m;
    EXPECT_NE(m.find("cand.json has 1 run(s):\n    prompt_tokens=32, submit=per-prompt"), std::string::npos) << m;
  }
}

TEST(Gate, IgnoredKeysLetTwoConfigsOfOneBuildPair) {
  RunSpec a = spec(100, 0.005, 11), b = spec(120, 0.005, 11);
  a.config_overrides = {{"submit", "per-dispatch"}};
  b.config_overrides = {{"submit", "per-prompt"}};
  GateOptions o;
  o.ignored_keys = {"submit"};
  const auto r = gate_docs(make_result({make_run(a)}), make_result({make_run(b)}), o);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].verdict, "win");
  EXPECT_FALSE(r.runs[0].config.contains("submit"));
  EXPECT_EQ(r.runs[0].cand_config["submit"], "per-prompt");
}

TEST(Gate, AConfigFromBeforeAnAxisMatchesItsOldValueOnly) {
  RunSpec old_file = spec(100, 0.005, 11), dispatch = spec(100, 0.005, 11), producer = spec(100, 0.005, 11);
  dispatch.config_overrides = {{"norm_placement", "dispatch"}, {"dmmv_activations", "float"}};
  producer.config_overrides = {{"norm_placement", "producer"}};
  ASSERT_FALSE(make_run(old_file)["config"].contains("norm_placement"));
  const auto r = gate_docs(make_result({make_run(old_file)}), make_result({make_run(dispatch)}));
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].config["norm_placement"], "dispatch");
  EXPECT_THROW(gate_docs(make_result({make_run(old_file)}), make_result({make_run(producer)})), UsageError);
}

TEST(Gate, DuplicateConfigInOneFileIsBadInput) {
  const auto run = make_run(spec(100, 0.005, 5));
  EXPECT_THROW(gate_docs(make_result({run, run}), make_result({run})), UsageError);
}

TEST(Gate, MetricFlagChoosesTheDecidingMetric) {
  GateOptions o;
  o.metric = "prefill.wall_ms";
  const auto r = gate_one(spec(100, 0.005, 11), spec(95, 0.005, 11), o);
  EXPECT_EQ(r.runs[0].headline, "prefill.wall_ms");
  EXPECT_EQ(r.runs[0].verdict, "regression");  // a longer wall time is worse
  o.metric = "prefill.no_such_ms";
  try {
    gate_one(spec(100, 0.005, 11), spec(95, 0.005, 11), o);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("prefill.wall_ms"), std::string::npos) << e.what();  // lists the known ones
  }
}

TEST(Gate, DifferentDevicesGateWithAWarning) {
  RunSpec a = spec(100, 0.005, 11), b = spec(110, 0.005, 11);
  a.config_overrides["profile"] = b.config_overrides["profile"] = "submit";
  const auto r = gate_docs(make_result({make_run(a)}, "AMD Radeon RX 9070"), make_result({make_run(b)}, "llvmpipe"));
  EXPECT_EQ(r.runs[0].verdict, "win");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("different devices"), std::string::npos);
}

// Runs that step one token at a time with a timestamp at every phase boundary or dispatch get a
// warning: the timestamps' waits can hide a change that overlaps dispatches. Chunked prefill and
// submit-level timestamps do not.
TEST(Gate, DenseTimestampsOnTokenStepsGateWithAWarning) {
  const auto warnings = [](const nlohmann::json& overrides) {
    RunSpec a = spec(100, 0.005, 11), b = spec(101, 0.005, 11);
    a.config_overrides = b.config_overrides = overrides;
    return gate_one(a, b).warnings;
  };
  const auto dense = warnings({{"profile", "phase"}, {"prefill", "decode-loop"}});
  ASSERT_EQ(dense.size(), 1u);
  EXPECT_NE(dense[0].find("2 of the runs"), std::string::npos) << dense[0];
  EXPECT_NE(dense[0].find("profile submit"), std::string::npos) << dense[0];
  EXPECT_EQ(warnings({{"profile", "dispatch"}, {"prefill", "batched"}, {"decode_tokens", 8}}).size(), 1u);
  EXPECT_TRUE(warnings({{"profile", "submit"}, {"prefill", "decode-loop"}, {"decode_tokens", 8}}).empty());
  EXPECT_TRUE(warnings({{"profile", "phase"}, {"prefill", "batched"}, {"decode_tokens", 0}}).empty());
}

TEST(Gate, OtherSchemaVersionIsRefusedWithTheVersionNamed) {
  auto doc = make_result({make_run(spec(100, 0.005, 5))});
  doc["schema"] = "phasebench.result/2";
  const auto path = write_json(fresh_dir("gate-schema"), "v2.json", doc);
  try {
    ResultFile::load(path);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("phasebench.result/2"), std::string::npos) << e.what();
  }
}

TEST(Gate, ThresholdAcceptsPercentOrFraction) {
  EXPECT_DOUBLE_EQ(gate::parse_threshold("1%"), 0.01);
  EXPECT_DOUBLE_EQ(gate::parse_threshold("0.01"), 0.01);
  EXPECT_DOUBLE_EQ(gate::parse_threshold("2.5%"), 0.025);
  for (const char* bad : {"", "%", "abc", "1%%", "0", "-1%", "100%", "1.5", "nan"}) {
    EXPECT_THROW(gate::parse_threshold(bad), UsageError) << bad;
  }
}

TEST(Gate, SameSeedSameReport) {
  const auto a = gate_one(spec(100, 0.03, 7), spec(102, 0.03, 7, 2));
  const auto b = gate_one(spec(100, 0.03, 7), spec(102, 0.03, 7, 2));
  EXPECT_EQ(gate::to_json(a).dump(), gate::to_json(b).dump());
}

TEST(GateOutput, JsonHasTheDocumentedShape) {
  const auto r = gate_one(spec(100, 0.04, 5), spec(102, 0.04, 5, 1));
  const auto j = gate::to_json(r);
  EXPECT_EQ(j["schema"], "phasebench.gate/1");
  for (const char* k : {"file", "device", "git_commit"}) EXPECT_TRUE(j["candidate"].contains(k)) << k;
  EXPECT_DOUBLE_EQ(j["threshold"].get<double>(), 0.01);
  const auto& run = j["runs"][0];
  for (const char* k : {"key", "config", "verdict", "reason", "headline", "metrics"}) EXPECT_TRUE(run.contains(k)) << k;
  const auto& m = run["metrics"]["prefill.tok_s"];
  for (const char* k : {"base_median", "cand_median", "ratio", "improvement", "ci_low", "ci_high", "p_value", "test",
                        "verdict", "higher_is_better", "n_base", "n_cand", "more_repetitions"}) {
    EXPECT_TRUE(m.contains(k)) << k;
  }
  EXPECT_TRUE(m["more_repetitions"].is_number_integer());
  EXPECT_LT(m["ci_low"].get<double>(), m["ci_high"].get<double>());
  EXPECT_EQ(j["summary"].size(), 7u);
  EXPECT_EQ(j["summary"]["inconclusive"], 1);
}

TEST(GateOutput, MarkdownShowsTheTableAndTheWayForward) {
  RunSpec a1 = spec(100, 0.005, 11), a2 = spec(100, 0.04, 5);
  a1.config_overrides = {{"submit", "per-layer"}};
  a2.config_overrides = {{"submit", "per-prompt"}};
  RunSpec b1 = spec(110, 0.005, 11), b2 = spec(102, 0.04, 5, 1);
  b1.config_overrides = a1.config_overrides;
  b2.config_overrides = a2.config_overrides;
  const auto r = gate_docs(make_result({make_run(a1), make_run(a2)}), make_result({make_run(b1), make_run(b2)}));
  std::ostringstream out;
  gate::write_markdown(out, r);
  const std::string md = out.str();
  EXPECT_NE(md.find("| run | headline | base → cand | Δ (95% CI) | p | verdict |"), std::string::npos) << md;
  EXPECT_NE(md.find("| submit=per-layer | prefill.tok_s | 100 → 110 | +10.00% ["), std::string::npos) << md;
  EXPECT_NE(md.find("**win**"), std::string::npos) << md;
  EXPECT_NE(md.find("more repetitions per side)"), std::string::npos) << md;
  EXPECT_NE(md.find("common config: "), std::string::npos) << md;
  EXPECT_NE(md.find("every metric"), std::string::npos) << md;
  EXPECT_NE(md.find("**pass**: 1 inconclusive, 1 win"), std::string::npos) << md;
}

}  // namespace
}  // namespace pb::test
