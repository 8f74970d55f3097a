// `gate`, `cycle record`, `cycles` and `history` through the real binary: exit statuses,
// output formats, the JSON against its schema, and processes writing the history at once.
#include <gtest/gtest.h>

#include <fstream>

#include "binary_run.h"
#include "result_fixture.h"

namespace pb::test {
namespace {

namespace fs = std::filesystem;

struct Files {
  fs::path dir, base, win, regression, incorrect, failed, unrelated, v2;
};

const Files& files() {
  static const Files f = [] {
    Files f;
    f.dir = fresh_dir("gate-cli");
    const auto one = [&](double median, int phase, const std::string& status = "ok",
                         std::vector<uint32_t> tokens = {7}) {
      RunSpec s;
      s.tok_s = spread_values(median, 0.005, 11, phase);
      s.status = status;
      s.tokens = tokens;
      s.with_fingerprint = status != "failed";
      return make_run(s);
    };
    f.base = write_json(f.dir, "base.json", make_result({one(100, 0)}));
    f.win = write_json(f.dir, "win.json", make_result({one(110, 3)}));
    f.regression = write_json(f.dir, "regression.json", make_result({one(90, 3)}));
    f.incorrect = write_json(f.dir, "incorrect.json", make_result({one(110, 3, "ok", {8})}));
    f.failed = write_json(f.dir, "failed.json", make_result({one(110, 3, "failed")}));
    RunSpec other;
    other.tok_s = {1, 2, 3};
    other.config_overrides = {{"model", "tiny-llama"}};
    f.unrelated = write_json(f.dir, "unrelated.json", make_result({make_run(other)}));
    auto v2 = make_result({one(110, 3)});
    v2["schema"] = "phasebench.result/2";
    f.v2 = write_json(f.dir, "v2.json", v2);
    return f;
  }();
  return f;
}

std::string gate_args(const fs::path& a, const fs::path& b) { return "gate " + a.string() + " " + b.string(); }

TEST(GateCli, ExitStatusesFollowTheVerdicts) {
  const Files& f = files();
  EXPECT_EQ(run_binary(gate_args(f.base, f.win)).status, 0);
  EXPECT_EQ(run_binary(gate_args(f.base, f.base)).status, 0);  // identical: flat
  EXPECT_EQ(run_binary(gate_args(f.base, f.regression)).status, 1);
  EXPECT_EQ(run_binary(gate_args(f.base, f.incorrect)).status, 1);
  EXPECT_EQ(run_binary(gate_args(f.base, f.failed)).status, 1);
}

TEST(GateCli, BadInputExitsTwoWithAMessage) {
  const Files& f = files();
  auto r = run_binary(gate_args(f.base, f.unrelated));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no runs in common"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model=tiny-dense"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model=tiny-llama"), std::string::npos) << r.out;
  r = run_binary(gate_args(f.base, f.v2));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("phasebench.result/2"), std::string::npos) << r.out;
  EXPECT_EQ(run_binary(gate_args(f.base, f.dir / "missing.json")).status, 2);
  r = run_binary(gate_args(f.base, f.win) + " --threshold 1x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--threshold"), std::string::npos) << r.out;
  EXPECT_EQ(run_binary(gate_args(f.base, f.win) + " --alpha 2").status, 2);
  EXPECT_EQ(run_binary(gate_args(f.base, f.win) + " --metric nope").status, 2);
}

TEST(GateCli, IgnoreAxisPairsTwoConfigsOfOneBuild) {
  RunSpec s;
  s.tok_s = spread_values(110, 0.005, 11, 3);
  s.config_overrides = {{"submit", "per-prompt"}};
  const auto other = write_json(files().dir, "per-prompt.json", make_result({make_run(s)}));
  EXPECT_EQ(run_binary(gate_args(files().base, other)).status, 2);  // per-layer vs per-prompt: nothing in common
  const auto r = run_binary(gate_args(files().base, other) + " --ignore-axis submit", false);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("runs matched without submit; the sides differ in submit: per-layer → per-prompt"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("**win**"), std::string::npos) << r.out;
}

TEST(GateCli, MarkdownByDefault) {
  const auto r = run_binary(gate_args(files().base, files().win), false);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("## A/B gate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| all | prefill.tok_s | 100 → 110 | +10.00% ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("**win**"), std::string::npos) << r.out;
}

TEST(GateCli, JsonFollowsTheGateSchema) {
  const Files& f = files();
  for (const auto* cand : {&f.win, &f.regression, &f.incorrect, &f.failed}) {
    const auto r = run_binary(gate_args(f.base, *cand) + " --json --threshold 0.02 --seed 7", false);
    const auto path = f.dir / ("gate-" + cand->stem().string() + ".json");
    std::ofstream(path) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_DOUBLE_EQ(j["threshold"].get<double>(), 0.02);
    EXPECT_EQ(schema_errors(path.string(), "results/schema/gate.schema.json"), "") << r.out;
  }
}

TEST(GateCli, FixtureFilesFollowTheResultSchema) {
  EXPECT_EQ(schema_errors(files().base.string(), "results/schema/result.schema.json"), "");
}

TEST(CycleCli, RecordThenListCyclesAndHistory) {
  const Files& f = files();
  const auto db = fresh_dir("cycle-cli") / "history.sqlite";
  const std::string on = " --db " + db.string();
  auto r =
      run_binary("cycle record --base " + f.base.string() + " --cand " + f.win.string() + " --change 'fused QKV'" + on);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cycle 1 recorded"), std::string::npos) << r.out;
  r = run_binary("cycle record --base " + f.win.string() + " --cand " + f.regression.string() +
                 " --change 'bigger tiles'" + on);
  EXPECT_EQ(r.status, 1) << r.out;  // recorded, and the regression is reported as a failed check
  EXPECT_EQ(run_binary("cycle record --base " + f.base.string() + " --cand " + f.win.string() +
                       " --change x --revert --keep" + on)
                .status,
            2);

  r = run_binary("cycles --format json" + on, false);
  ASSERT_EQ(r.status, 0);
  const auto cycles = nlohmann::json::parse(r.out);
  ASSERT_EQ(cycles.size(), 2u);
  EXPECT_EQ(cycles[0]["change"], "fused QKV");
  EXPECT_EQ(cycles[0]["kept"], true);
  EXPECT_EQ(cycles[1]["verdict"], "regression");
  EXPECT_EQ(cycles[1]["kept"], false);
  EXPECT_DOUBLE_EQ(cycles[1]["best_so_far"].get<double>(), 110);

  r = run_binary("cycles" + on, false);
  EXPECT_NE(r.out.find("| 2 | bigger tiles | prefill.tok_s | 110 → 90 |"), std::string::npos) << r.out;
  r = run_binary("history" + on, false);
  EXPECT_NE(r.out.find("| when | device | git commit | file | cycle | role | verdict |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("regression.json | 2 | candidate | regression |"), std::string::npos) << r.out;
  EXPECT_EQ(run_binary("cycles --format xml" + on).status, 2);
}

TEST(CycleCli, ConcurrentProcessesAllRecord) {
  const Files& f = files();
  const auto dir = fresh_dir("cycle-cli-concurrent");
  const auto db = dir / "history.sqlite";
  std::string script;
  for (int i = 0; i < 6; ++i) {
    script += std::string(PHASEBENCH_BINARY) + " cycle record --base " + f.base.string() + " --cand " + f.win.string() +
              " --change 'process " + std::to_string(i) + "' --db " + db.string() + " >/dev/null 2>" +
              (dir / ("err" + std::to_string(i))).string() + "; echo $? > " +
              (dir / ("rc" + std::to_string(i))).string() + " &\n";
  }
  script += "wait\n";
  ASSERT_EQ(std::system(script.c_str()), 0);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(read_text(dir / ("rc" + std::to_string(i))), "0\n") << read_text(dir / ("err" + std::to_string(i)));
  }
  const auto r = run_binary("cycles --format json --db " + db.string(), false);
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 6u);
}

TEST(CycleCli, CorruptedDatabaseExitsTwoAndStaysByteIdentical) {
  const auto db = fresh_dir("cycle-cli-corrupt") / "history.sqlite";
  const std::string junk = "this is not a database, just some bytes\n" + std::string(5000, '\x7f');
  std::ofstream(db, std::ios::binary) << junk;
  for (const std::string& cmd : std::vector<std::string>{
           "cycles", "history",
           "cycle record --base " + files().base.string() + " --cand " + files().win.string() + " --change x"}) {
    const auto r = run_binary(cmd + " --db " + db.string());
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("not a SQLite database"), std::string::npos) << r.out;
  }
  EXPECT_EQ(read_text(db), junk);
}

}  // namespace
}  // namespace pb::test
