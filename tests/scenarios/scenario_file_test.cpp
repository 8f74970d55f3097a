// Scenario files: expansion, exclusions, and a message for every kind of bad input that names
// the file, the JSON pointer, the bad value and what is allowed.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/errors.h"
#include "scenarios/scenario.h"
#include "tests/support/schema_check.h"

namespace pb::test {
namespace {

void expect_error(const std::string& text, std::initializer_list<const char*> fragments) {
  try {
    parse_scenario(text, "bad.json");
    FAIL() << "no error for " << text;
  } catch (const UsageError& e) {
    for (const char* f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "message: " << e.what() << "\nmissing: " << f;
    }
  }
}

TEST(ScenarioFile, ExpandsTheCartesianProductInFileOrder) {
  const Scenario s = parse_scenario(R"({
    "name": "t", "model": "tiny-dense", "workload": {"prompt_tokens": 5, "decode_tokens": 1},
    "base": {"barriers": "ledger"},
    "axes": {"submit": ["per-layer", "per-prompt"], "double_buffer": [false, true], "chunk_cols": [4, 8, 16]}
  })", "t.json");
  const auto runs = s.expand();
  ASSERT_EQ(runs.size(), 12u);
  EXPECT_EQ(runs[0].config.submit.name(), "per-layer");
  EXPECT_FALSE(runs[0].config.double_buffer);
  EXPECT_EQ(runs[0].config.forward.chunk_cols, 4u);
  EXPECT_EQ(runs[1].config.forward.chunk_cols, 8u);  // the last axis varies fastest
  EXPECT_TRUE(runs[3].config.double_buffer);
  EXPECT_EQ(runs[6].config.submit.name(), "per-prompt");
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].index, i);
    EXPECT_EQ(runs[i].config.barriers, BarrierPolicy::Ledger);  // the base applies to all
    EXPECT_EQ(runs[i].config.prompt_tokens, 5u);
  }
}

TEST(ScenarioFile, ExclusionsDropCombinationsButKeepIndices) {
  const Scenario s = parse_scenario(R"({
    "name": "t", "model": "tiny-dense",
    "axes": {"prefill": ["decode-loop", "batched"], "chunk_cols": [4, 8]},
    "exclude": [{"when": {"prefill": "decode-loop", "chunk_cols": 8}, "reason": "does not apply"}]
  })", "t.json");
  const auto runs = s.expand();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].index, 0u);
  EXPECT_EQ(runs[1].index, 2u);  // index 1 (decode-loop, 8) was excluded
  EXPECT_EQ(runs[2].index, 3u);
}

TEST(ScenarioFile, MalformedJsonNamesLineAndColumn) {
  expect_error("{\n  \"name\": \"x\",\n  \"axes\": {\"submit\": [\"per-layer\",]}\n}",
               {"bad.json", "line 3", "column", "malformed JSON"});
}

TEST(ScenarioFile, UnknownTopLevelKey) {
  expect_error(R"({"name": "x", "axis": {}})", {"bad.json", "/axis", "unknown key", "axes"});
}

TEST(ScenarioFile, UnknownAxisNamesTheKnownOnes) {
  expect_error(R"({"name": "x", "axes": {"submitt": ["per-layer"]}})",
               {"bad.json", "/axes/submitt", "unknown key", "submit", "barriers"});
}

TEST(ScenarioFile, BadAxisValueNamesPointerValueAndAllowedValues) {
  expect_error(R"({"name": "x", "axes": {"submit": ["per-layer", "per-layers"]}})",
               {"bad.json", "/axes/submit/1", "\"per-layers\"", "per-dispatch", "chunk:N"});
  expect_error(R"({"name": "x", "base": {"barriers": "scoped"}})",
               {"/base/barriers", "\"scoped\"", "global, buffer, ledger, none"});
  expect_error(R"({"name": "x", "base": {"double_buffer": "yes"}})", {"/base/double_buffer", "true or false"});
  expect_error(R"({"name": "x", "workload": {"prompt_tokens": 0}})", {"/workload/prompt_tokens", "from 1"});
  expect_error(R"({"name": "x", "base": {"num_cols": "shared:16"}})", {"spec, shared:32, shared:64"});
}

TEST(ScenarioFile, EveryExclusionNeedsAReason) {
  expect_error(R"({"name": "x", "axes": {"submit": ["per-layer", "per-prompt"]},
                   "exclude": [{"when": {"submit": "per-layer"}}]})",
               {"/exclude/0/reason", "needs a reason"});
}

TEST(ScenarioFile, ExcludingEverythingIsAnError) {
  expect_error(R"({"name": "x", "axes": {"submit": ["per-layer"]},
                   "exclude": [{"when": {"submit": "per-layer"}, "reason": "r"}]})",
               {"every combination", "nothing would run"});
}

TEST(ScenarioFile, RepetitionRuleIsChecked) {
  expect_error(R"({"name": "x", "repetitions": {"min": 10, "max": 5}})", {"/repetitions", "max"});
  expect_error(R"({"name": "x", "repetitions": {"warm": 1}})", {"/repetitions/warm", "unknown key"});
}

TEST(ScenarioFile, OverridesFixAnAxis) {
  Scenario s = parse_scenario(R"({"name": "t", "axes": {"submit": ["per-layer", "per-prompt"],
                                  "barriers": ["global", "ledger"]}})", "t.json");
  apply_overrides(s, {"submit=per-dispatch", "prompt_tokens=7"});
  const auto runs = s.expand();
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& r : runs) {
    EXPECT_EQ(r.config.submit.name(), "per-dispatch");
    EXPECT_EQ(r.config.prompt_tokens, 7u);
  }
  EXPECT_THROW(apply_overrides(s, {"submit"}), UsageError);
  EXPECT_THROW(apply_overrides(s, {"submit=sometimes"}), UsageError);
}

TEST(ShippedScenarios, EveryFileParsesAndMatchesTheSchema) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("scenarios"))) {
    const auto path = entry.path();
    if (path.extension() != ".json" || path.filename().string().find("schema") != std::string::npos) continue;
    ++count;
    EXPECT_NO_THROW(load_scenario(path)) << path;
    EXPECT_EQ(schema_errors(path.string(), "scenarios/scenario.schema.json"), "") << path;
    // Every GPU scenario has a tiny twin with the same axes.
    const std::string name = path.filename().string();
    if (name.rfind("tiny-", 0) != 0) {
      const auto twin = path.parent_path() / ("tiny-" + name);
      ASSERT_TRUE(std::filesystem::exists(twin)) << "no tiny twin for " << name;
      const Scenario big = load_scenario(path), tiny = load_scenario(twin);
      ASSERT_EQ(big.axes.size(), tiny.axes.size()) << name;
      for (size_t a = 0; a < big.axes.size(); ++a) EXPECT_EQ(big.axes[a].first, tiny.axes[a].first);
    }
  }
  EXPECT_GE(count, 14u);
}

}  // namespace
}  // namespace pb::test
