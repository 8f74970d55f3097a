// The interleaving schedule of `ab` and the merging of each side's rounds.
#include "results/gate/ab_plan.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "result_fixture.h"
#include "results/gate/result_merge.h"

namespace pb::test {
namespace {

gate::AbPlan plan(int rounds) {
  gate::AbPlan p;
  p.scenario = "scenarios/tiny.json";
  p.a = {"a", "/builds/a/phasebench", {"submit=per-dispatch"}};
  p.b = {"b", "/builds/b/phasebench", {"submit=per-prompt"}};
  p.common_sets = {"prompt_tokens=8"};
  p.rounds = rounds;
  p.repetitions = 4;
  p.out_dir = "/tmp/ab";
  return p;
}

TEST(AbPlan, RoundsAlternateWhichSideGoesFirst) {
  const auto p = plan(3);
  const auto order = gate::interleaved_invocations(p);
  ASSERT_EQ(order.size(), 6u);
  std::string sides;
  for (const auto& inv : order) sides += inv.side->name + std::to_string(inv.round) + " ";
  EXPECT_EQ(sides, "a1 b1 b2 a2 a3 b3 ");
}

TEST(AbPlan, EachSweepGetsItsBinaryOverridesAndFile) {
  const auto p = plan(2);
  const auto order = gate::interleaved_invocations(p);
  EXPECT_EQ(gate::command_line(order[2].argv),
            "/builds/b/phasebench sweep scenarios/tiny.json --set prompt_tokens=8 --set submit=per-prompt "
            "--repetitions 4 --no-bandwidth --out /tmp/ab/b-round2.json");
  EXPECT_EQ(order[0].out, std::filesystem::path("/tmp/ab/a-round1.json"));
  EXPECT_EQ(gate::override_axes(p), (std::set<std::string>{"submit"}));
  EXPECT_EQ(gate::merged_path(p, p.b), std::filesystem::path("/tmp/ab/b.json"));
}

TEST(AbPlan, BadPlansAreUsageErrors) {
  auto p = plan(0);
  EXPECT_THROW(gate::validate(p), UsageError);
  p = plan(1);
  p.a.sets = {"submit"};
  EXPECT_THROW(gate::validate(p), UsageError);
  p = plan(1);
  p.b.sets = {"submit=per-prompt", "submit=per-layer"};
  EXPECT_THROW(gate::validate(p), UsageError);
  p = plan(1);
  p.a.sets = {"prompt_tokens=4"};  // already given to both sides by --set
  EXPECT_THROW(gate::validate(p), UsageError);
  EXPECT_NO_THROW(gate::validate(plan(1)));
}

TEST(AbPlan, CommandLineQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(gate::command_line({"/a b/phasebench", "it's"}), "'/a b/phasebench' 'it'\\''s'");
}

std::vector<gate::RoundFile> rounds_of(const std::vector<nlohmann::json>& docs) {
  const auto dir = fresh_dir("merge");
  std::vector<gate::RoundFile> rounds;
  for (size_t i = 0; i < docs.size(); ++i) {
    const auto path = write_json(dir, "a-round" + std::to_string(i + 1) + ".json", docs[i]);
    rounds.push_back({path.string(), ResultFile::load(path)});
  }
  return rounds;
}

TEST(ResultMerge, SamplesConcatenateAndTheSummaryIsRecomputed) {
  RunSpec r1, r2;
  r1.tok_s = {100, 101, 102};
  r2.tok_s = {110, 111, 112, 113};
  RunSpec other;
  other.config_overrides = {{"submit", "per-prompt"}};
  other.tok_s = {50, 51, 52};
  const auto merged =
      gate::merge_rounds(rounds_of({make_result({make_run(r1), make_run(other)}), make_result({make_run(r2)})}));
  const auto& runs = merged.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["samples"].size(), 7u);
  EXPECT_EQ(runs[0]["repetitions"]["measured"], 7);
  EXPECT_EQ(runs[0]["repetitions"]["warmup"], 2);
  const auto& s = runs[0]["summary"]["prefill.tok_s"];
  EXPECT_EQ(s["n"], 7);
  EXPECT_DOUBLE_EQ(s["median"].get<double>(), 110);
  EXPECT_DOUBLE_EQ(s["min"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(s["max"].get<double>(), 113);
  EXPECT_TRUE(s["ci_low"].is_number());      // 7 samples reach a 95% interval of the median
  EXPECT_EQ(runs[1]["samples"].size(), 3u);  // only in round 1: kept as it is
  EXPECT_EQ(merged.document()["merged_from"].size(), 2u);
}

TEST(ResultMerge, OutputThatChangesBetweenRoundsIsIncorrect) {
  RunSpec r1, r2;
  r1.tok_s = r2.tok_s = {100, 101, 102};
  r2.tokens = {8};
  const auto merged = gate::merge_rounds(rounds_of({make_result({make_run(r1)}), make_result({make_run(r2)})}));
  EXPECT_EQ(merged.runs()[0]["status"], "incorrect");
  EXPECT_NE(merged.runs()[0]["incorrect_reason"].get<std::string>().find("a-round2.json"), std::string::npos);
}

TEST(ResultMerge, TheWorstStatusWins) {
  RunSpec ok, failed;
  ok.tok_s = {100, 101, 102};
  failed.tok_s = {100};
  failed.status = "failed";
  failed.with_fingerprint = false;
  const auto merged = gate::merge_rounds(rounds_of({make_result({make_run(ok)}), make_result({make_run(failed)})}));
  EXPECT_EQ(merged.runs()[0]["status"], "failed");
  EXPECT_EQ(merged.runs()[0]["error"], "the device was lost");
  EXPECT_EQ(merged.runs()[0]["samples"].size(), 4u);
}

}  // namespace
}  // namespace pb::test
