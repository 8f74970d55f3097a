// phasebench-kernels as a user and Google Benchmark's compare tool meet it: a few small
// benchmarks on the default device (the CPU device, with its small shapes, in the test
// environment), their JSON, counters and context, and the exit statuses of bad usage.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "tests/support/shell_command.h"

namespace {

using Result = pb::test::CommandResult;

Result run(const std::string& args, const char* stderr_to = "2>&1") {
  return pb::test::run_command(std::string(PHASEBENCH_KERNELS_BINARY) + " " + args + " " + stderr_to);
}

// A run's stderr alone (stdout, where the results go, is dropped): what it states about itself.
Result run_stderr(const std::string& args) { return run(args, "2>&1 >/dev/null"); }

// The JSON a run prints (--benchmark_format=json; stderr left out), or a discarded value after a
// failure that shows the run's exit status or output.
nlohmann::json run_json(const std::string& args) {
  const Result r = run(args + " --benchmark_format=json", "2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  if (r.status != 0) return nlohmann::json(nlohmann::json::value_t::discarded);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out;
  return j;
}

// The smallest benchmark of each family the test covers; the shapes are matched loosely so
// the same filter picks the model shapes on a GPU.
const char* kFilter =
    "^(dmmv/q4_k/(spec|shared:64)/attn:[0-9x]+/num_cols:1|dmmv/q8_0/spec/attn:[0-9x]+/num_cols:8|"
    "rmsnorm/n:[0-9]+/cols:1|argmax/vocab:[0-9]+/cols:1|attn_decode/[a-z0-9]+/ctx:512)/";
constexpr size_t kExpectedBenchmarks = 6;

// One run for the whole binary: the device opens and the bandwidth probe runs once.
const nlohmann::json& bench_json() {
  static const nlohmann::json json = run_json(std::string("--benchmark_filter='") + kFilter +
                                              "' --benchmark_min_time=0.01 --benchmark_repetitions=2");
  return json;
}

bool positive_finite(const nlohmann::json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
}

// Bytes one DMMV invocation moves by the model: weights in their format, x and y in float32.
double dmmv_bytes(const std::string& name) {
  std::smatch m;
  const std::regex shape("dmmv/([a-z0-9_]+)/[^/]+/[a-z_]+:([0-9]+)x([0-9]+)/num_cols:([0-9]+)/");
  if (!std::regex_search(name, m, shape)) return 0;
  const double rows = std::stod(m[2]), cols = std::stod(m[3]), ncols = std::stod(m[4]);
  const double bytes_per_weight = m[1] == "q4_k" ? 144.0 / 256 : m[1] == "q8_0" ? 34.0 / 32 : 0;
  return rows * cols * bytes_per_weight + 4 * ncols * (rows + cols);
}

TEST(BenchCli, RunsTheFilteredBenchmarksWithGpuTimeAndCounters) {
  const nlohmann::json& j = bench_json();
  ASSERT_FALSE(j.is_discarded()) << "the output is not JSON";
  const nlohmann::json& context = j.at("context");
  const double copy_gbps = std::stod(context.at("copy_bandwidth_gbps").get<std::string>());
  ASSERT_GT(copy_gbps, 0);

  std::set<std::string> names;
  for (const auto& b : j.at("benchmarks")) {
    if (b.at("run_type") != "iteration") continue;
    const std::string name = b.at("name");
    names.insert(name);
    EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>()) << name << ": " << b;
    EXPECT_EQ(b.at("time_unit"), "us") << name;
    EXPECT_TRUE(positive_finite(b.at("real_time"))) << name << ": manual (GPU) time " << b["real_time"];
    for (const char* counter : {"GB/s", "GFLOP/s", "roofline", "bytes_per_second"}) {
      EXPECT_TRUE(b.contains(counter) && positive_finite(b[counter])) << name << ": counter " << counter;
    }
    if (!b.contains("GB/s") || !b.contains("roofline")) continue;
    // The roofline share is the achieved bandwidth over the context's copy bandwidth (printed
    // to 0.1 GB/s, hence the tolerance).
    EXPECT_NEAR(b["roofline"].get<double>(), b["GB/s"].get<double>() / copy_gbps,
                0.02 * b["roofline"].get<double>())
        << name;
    // GB/s is the bytes model over the GPU time of one invocation.
    if (const double bytes = dmmv_bytes(name); bytes > 0) {
      const double measured = b["GB/s"].get<double>() * 1e9 * b["real_time"].get<double>() * 1e-6;
      EXPECT_NEAR(measured, bytes, 0.01 * bytes) << name;
    }
    if (context.at("device_type") == "cpu") {
      EXPECT_EQ(b.value("label", ""), "cpu-small shapes") << name;
    }
  }
  EXPECT_EQ(names.size(), kExpectedBenchmarks) << j.at("benchmarks").dump(1);
  const std::regex filter(kFilter);
  for (const auto& name : names) EXPECT_TRUE(std::regex_search(name, filter)) << name;
}

TEST(BenchCli, WritesRepetitionAggregatesForTheCompareTool) {
  const nlohmann::json& j = bench_json();
  ASSERT_FALSE(j.is_discarded());
  size_t medians = 0;
  for (const auto& b : j.at("benchmarks")) {
    if (b.at("run_type") == "aggregate" && b.at("aggregate_name") == "median") {
      ++medians;
      EXPECT_TRUE(positive_finite(b.at("real_time"))) << b;
    }
  }
  EXPECT_EQ(medians, kExpectedBenchmarks);
}

// --benchmark_enable_random_interleaving runs the repetitions of the benchmarks in a shuffled
// order, so that what ran before a benchmark (the cache, the clocks) is not always the same;
// each repetition builds its case anew. Each benchmark's repetitions still run one number of
// iterations (Google Benchmark aborts otherwise), each with a GPU time, and the aggregates follow.
TEST(BenchCli, RandomInterleavingRunsEachRepetitionWithTheSameIterations) {
  const nlohmann::json j =
      run_json("--benchmark_filter='^(moe_acc/n:[0-9]+/top:[0-9]+/tokens:(1|64)|rmsnorm/n:[0-9]+/cols:1)/' "
               "--benchmark_min_time=0.01 --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true");
  ASSERT_FALSE(j.is_discarded());
  std::map<std::string, std::set<int64_t>> iterations;
  std::map<std::string, int> repetitions, medians;
  for (const auto& b : j.at("benchmarks")) {
    const std::string name = b.at("run_name");
    if (b.at("run_type") == "iteration") {
      ++repetitions[name];
      iterations[name].insert(b.at("iterations").get<int64_t>());
      EXPECT_TRUE(positive_finite(b.at("real_time"))) << b;
    } else if (b.at("aggregate_name") == "median") {
      ++medians[name];
    }
  }
  ASSERT_EQ(repetitions.size(), 3u) << j.dump(1);
  for (const auto& [name, n] : repetitions) {
    EXPECT_EQ(n, 3) << name;
    EXPECT_EQ(iterations[name].size(), 1u) << name;
    EXPECT_EQ(medians[name], 1) << name;
  }
}

TEST(BenchCli, ContextNamesTheDeviceDriverBandwidthAndBuild) {
  const nlohmann::json& j = bench_json();
  ASSERT_FALSE(j.is_discarded());
  const nlohmann::json& c = j.at("context");
  for (const char* key : {"device", "device_type", "driver", "copy_bandwidth_gbps", "phasebench_commit",
                          "shapes", "rotation", "timing"}) {
    EXPECT_TRUE(c.contains(key) && c[key].is_string() && !c[key].get<std::string>().empty()) << key;
  }
  if (c.value("device_type", "") == "cpu") {
    EXPECT_EQ(c.value("shapes", ""), "cpu-small");
  }
}

// The benchmarks' own command buffers (rotation, batching, barriers) under the Khronos
// validation layer with synchronization validation: a report fails the benchmark and exits 1.
TEST(BenchCli, BenchmarksAreValidationClean) {
  const Result r =
      run("--validate --benchmark_filter='^(rmsnorm/n:[0-9]+/cols:1|attn_decode/[a-z0-9]+/ctx:4096|"
          "dmmv/q6_k/shared:32/attn:[0-9x]+/num_cols:2)/' --benchmark_min_time=0.01");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("validation: on"), std::string::npos) << r.out;
}

// The default rotates every input through several copies; --cache hot reads one, and says so.
TEST(BenchCli, CacheHotReadsOneCopyOfEachInput) {
  const char* filter = "--benchmark_filter='^(dmmv/q8_0/spec/attn:[0-9x]+/num_cols:1|rmsnorm/n:[0-9]+/cols:1)/'";
  for (const bool hot : {false, true}) {
    const nlohmann::json j = run_json(std::string(hot ? "--cache hot " : "") + filter + " --benchmark_min_time=0.01");
    ASSERT_FALSE(j.is_discarded());
    const std::string rotation = j.at("context").at("rotation");
    EXPECT_EQ(rotation.find("--cache hot") != std::string::npos, hot) << rotation;
    ASSERT_EQ(j.at("benchmarks").size(), 2u) << j.dump(1);
    for (const auto& b : j.at("benchmarks")) {
      if (hot) {
        EXPECT_EQ(b.at("copies").get<double>(), 1.0) << b;
      } else {
        EXPECT_GE(b.at("copies").get<double>(), 2.0) << b;
      }
    }
  }
}

// A sequence is its parts run invocation by invocation: its bytes model is theirs together, and
// each timed invocation records the dispatches of both. Its time is a figure to compare with the
// parts' (on lavapipe the first benchmark of a run can take twice its steady time), not a test.
TEST(BenchCli, SequenceCarriesItsPartsCostAndDispatches) {
  const nlohmann::json j = run_json(
      "--benchmark_filter='^(sequence/rmsnorm_quantize\\+glu_quantize|rmsnorm_quantize/n:[0-9]+/cols:1|"
      "glu_quantize/n:[0-9]+/cols:1)/' --benchmark_min_time=0.01");
  ASSERT_FALSE(j.is_discarded());
  std::map<std::string, nlohmann::json> by_family;
  for (const auto& b : j.at("benchmarks")) {
    const std::string name = b.at("name");
    by_family[name.substr(0, name.find('/'))] = b;
  }
  ASSERT_EQ(by_family.size(), 3u) << j.dump(1);
  const auto bytes = [](const nlohmann::json& b) {
    return b.at("GB/s").get<double>() * 1e3 * b.at("real_time").get<double>();
  };
  const nlohmann::json& seq = by_family.at("sequence");
  const nlohmann::json& norm = by_family.at("rmsnorm_quantize");
  const nlohmann::json& glu = by_family.at("glu_quantize");
  const double parts = bytes(norm) + bytes(glu);
  EXPECT_NEAR(bytes(seq), parts, 0.01 * parts) << seq;
  // Both parts are recorded in every timed invocation (their times are figures, not asserted).
  EXPECT_EQ(seq.at("dispatches").get<double>(),
            norm.at("dispatches").get<double>() + glu.at("dispatches").get<double>())
      << j.dump(1);
  EXPECT_GE(norm.at("dispatches").get<double>(), 1.0) << j.dump(1);
}

// After the run, the copy bandwidth measured again and the spread of each benchmark's
// repetitions: on stderr, and in the --benchmark_out file's context. --max-spread 0 flags every
// benchmark whose repetitions differ at all (GPU times never agree to the nanosecond), so the
// warning's path runs here whatever the device's noise.
TEST(BenchCli, StatesTheRunsSteadinessOnStderrAndInTheOutFile) {
  const std::string file = ::testing::TempDir() + "bench_steadiness.json";
  std::remove(file.c_str());
  const Result r = run_stderr("--max-spread 0 --benchmark_filter='^(rmsnorm|add)/n:[0-9]+/cols:1/' "
                              "--benchmark_min_time=0.01 --benchmark_repetitions=3 --benchmark_format=json "
                              "--benchmark_out=" + file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("copy bandwidth"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at the end"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("repetitions of 2 benchmarks; the widest spread"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("benchmark(s) spread by more than 0.00%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 3 repetitions, rmsnorm/"), std::string::npos) << r.out;

  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << file;
  const nlohmann::json& c = j.at("context");
  EXPECT_GT(std::stod(c.at("copy_bandwidth_end_gbps").get<std::string>()), 0) << c;
  EXPECT_EQ(c.at("repetition_spread_limit"), "0.00%") << c;
  EXPECT_NE(c.at("repetition_spread_widest").get<std::string>().find("over 3 repetitions"), std::string::npos) << c;
  EXPECT_EQ(c.at("repetition_spread_unchecked"), "0") << c;
  const int over = std::stoi(c.at("repetition_spread_over_limit").get<std::string>());
  EXPECT_GE(over, 1) << c;
  EXPECT_LE(over, 2) << c;
  // The benchmarks themselves are as Google Benchmark wrote them: 2 x 3 repetitions, 2 x 4 aggregates.
  EXPECT_EQ(j.at("benchmarks").size(), 14u) << j.at("benchmarks").dump(1);
  std::remove(file.c_str());
}

// One repetition (the default) has no spread to state or to warn of; the bandwidth is still stated.
TEST(BenchCli, OneRepetitionStatesNoSpread) {
  const Result r = run_stderr("--benchmark_filter='^rmsnorm/n:[0-9]+/cols:1/' --benchmark_min_time=0.01 "
                              "--benchmark_format=json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("copy bandwidth"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("widest spread"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("spread by more than"), std::string::npos) << r.out;
}

// With the display given aggregates only there are no repetition times to compare: the run says
// so instead of stating no spread as if there were none.
TEST(BenchCli, AggregatesOnlyDisplayLeavesTheSpreadUncheckedAndSaysSo) {
  const Result r = run_stderr("--max-spread 0 --benchmark_filter='^(rmsnorm|add)/n:[0-9]+/cols:1/' "
                              "--benchmark_min_time=0.01 --benchmark_repetitions=2 "
                              "--benchmark_display_aggregates_only=true");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("the spread of 2 benchmark(s) is not checked"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("widest spread"), std::string::npos) << r.out;
}

TEST(BenchCli, BadUsageExitsWithStatus2) {
  Result r = run("--device");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--device needs a value"), std::string::npos) << r.out;
  r = run("--cache warm");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--cache: expected cold"), std::string::npos) << r.out;
  r = run("--max-spread five");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--max-spread: expected a percentage of 0 or more"), std::string::npos) << r.out;
  r = run("--max-spread=-1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("got '-1'"), std::string::npos) << r.out;
  r = run("--no-such-flag");
  EXPECT_EQ(r.status, 2) << r.out;
  r = run("--device 99 --benchmark_filter=none");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no device with that index"), std::string::npos) << r.out;
}

// --pipeline-statistics: the driver's figures as counters LABEL.STATISTIC where the device has
// VK_KHR_pipeline_executable_properties (the context says which); otherwise bad usage that says
// what is missing.
TEST(BenchCli, PipelineStatisticsAreCountersOrAClearRefusal) {
  const std::string device_has = bench_json().at("context").value("pipeline_statistics", "");
  ASSERT_TRUE(device_has == "device yes" || device_has == "device no") << device_has;
  const Result r = run("--pipeline-statistics --benchmark_filter='^rmsnorm/n:[0-9]+/cols:1/' "
                       "--benchmark_min_time=0.01 --benchmark_format=json",
                       "2>&1");
  if (device_has == "device no") {
    ASSERT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("VK_KHR_pipeline_executable_properties"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("run without --pipeline-statistics"), std::string::npos) << r.out;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.out;
  // stderr is in the output too: the JSON is the part between the first and the last brace.
  const size_t first = r.out.find('{'), last = r.out.rfind('}');
  ASSERT_NE(first, std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out.substr(first, last - first + 1), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j.at("benchmarks").size(), 1u) << r.out;
  size_t statistics = 0;
  for (const auto& [key, value] : j.at("benchmarks")[0].items()) {
    if (key.find('.') != std::string::npos && key.starts_with("rmsnorm")) ++statistics;
  }
  EXPECT_GT(statistics, 0u) << r.out;
}

TEST(BenchCli, HelpNamesItsOwnAndGoogleBenchmarkFlags) {
  const Result r = run("--help");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--device"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--pipeline-statistics"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--benchmark_filter"), std::string::npos) << r.out;
}

}  // namespace
