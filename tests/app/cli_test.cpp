// The command line as a user meets it: exit statuses and messages of `phasebench devices`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <string>

#include "harness/build_info.h"
#include "tests/support/shell_command.h"

namespace {

using Result = pb::test::CommandResult;

Result run(const std::string& args) {
  return pb::test::run_command(std::string(PHASEBENCH_BINARY) + " " + args + " 2>&1");
}

TEST(Cli, DevicesListsTheCpuDeviceWithItsFeatures) {
  const Result r = run("devices");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("llvmpipe"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("push descriptors yes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timestamps: 64 valid bits"), std::string::npos) << r.out;
}

TEST(Cli, DevicesJsonIsAListWithOneDefault) {
  const Result r = run("devices --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto list = nlohmann::json::parse(r.out);
  ASSERT_TRUE(list.is_array());
  ASSERT_FALSE(list.empty());
  int defaults = 0;
  for (const auto& d : list) {
    defaults += d.at("default").get<bool>();
    EXPECT_TRUE(d.at("features").contains("calibrated_timestamps"));
    EXPECT_GT(d.at("timestamp_period_ns").get<double>(), 0.0);
  }
  EXPECT_EQ(defaults, 1);
}

TEST(Cli, BandwidthProbePrintsAFigure) {
  const Result r = run("devices --bandwidth --validate");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("roofline"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
}

TEST(Cli, UnknownFlagIsAUsageError) {
  const Result r = run("devices --no-such-flag");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--no-such-flag"), std::string::npos) << r.out;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  EXPECT_EQ(run("frobnicate").status, 2);
}

TEST(Cli, MissingDeviceListsTheDevices) {
  const Result r = run("devices --device 42");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no device with that index"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("llvmpipe"), std::string::npos) << r.out;
}

TEST(Cli, NoDriverSaysHowToInstallLavapipe) {
  // The loader's own variable points it at no driver at all.
  const Result r = run("devices 2>&1; exit $?");
  ASSERT_EQ(r.status, 0);
  const std::string command = std::string("VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json ") +
                              PHASEBENCH_BINARY + " devices 2>&1";
  const Result no_driver = pb::test::run_command(command);
  EXPECT_EQ(no_driver.status, 2) << no_driver.out;
  EXPECT_NE(no_driver.out.find("mesa-vulkan-drivers"), std::string::npos) << no_driver.out;
}

}  // namespace

namespace {

TEST(CliRun, APresetTooLargeForTheDeviceFailsBeforeAllocating) {
  const Result r = run("run --model llama3-8b --no-bandwidth --out /tmp/phasebench-too-large.json");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("needs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device-local heap"), std::string::npos) << r.out;
}

TEST(CliRun, UnknownPresetAndBadAxisValuesAreUsageErrors) {
  Result r = run("run --model llama9 --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("tiny-dense"), std::string::npos) << r.out;
  r = run("run --model tiny-dense --submit sometimes --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--submit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("per-layer-nowait"), std::string::npos) << r.out;
  r = run("run --model tiny-dense --prompt twelve --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("not an integer"), std::string::npos) << r.out;
}

// The int8 path checked against the reference that quantizes as it does; a build without the
// integer-dot kernels must refuse it with the way out, never run float under the int8 label.
TEST(CliRun, Int8ActivationsMatchTheirReferenceOrAreRefused) {
  const Result r = run("run --model tiny-llama --prompt 5 --decode 3 --repetitions 1 --warmup 0 "
                       "--dmmv-activations int8 --reference --validate --no-bandwidth "
                       "--out /tmp/phasebench-cli-int8.json");
  if (!pb::build_info().has_intdot_shaders) {
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--glslang-from-source"), std::string::npos) << r.out;
    return;
  }
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("matches the CPU reference"), std::string::npos) << r.out;
  const Result bad = run("run --model tiny-llama --dmmv-activations int4 --no-bandwidth");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("float, int8"), std::string::npos) << bad.out;
}

TEST(CliRun, ReferenceCheckPassesAndProgressIsSilentWhenPiped) {
  const Result r = run("run --model tiny-dense --prompt 5 --decode 3 --repetitions 2 --warmup 0 --reference "
                       "--validate --no-bandwidth --out /tmp/phasebench-cli-run.json");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("matches the CPU reference"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tok/s"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << "a progress line was drawn into a pipe";
  const Result t = run("trace /tmp/phasebench-cli-run.json --out /tmp/phasebench-cli-trace.json");
  EXPECT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("events"), std::string::npos) << t.out;
}

// The summary's block for `stage` ("prefill", "decode") of one quick run with `args`: its
// headline line and the indented lines under it.
std::string summary_block(const std::string& args, const std::string& stage) {
  const Result r = run("run " + args + " --repetitions 1 --warmup 0 --no-bandwidth");
  EXPECT_EQ(r.status, 0) << r.out;
  const size_t at = r.out.find("  " + stage + ":");
  EXPECT_NE(at, std::string::npos) << r.out;
  if (at == std::string::npos) return std::string();
  size_t end = r.out.find('\n', at);
  while (end != std::string::npos && r.out.compare(end + 1, 4, "    ") == 0) end = r.out.find('\n', end + 1);
  return r.out.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The summary says how many timestamps each token carries, since each one waits for the work
// before it: none without profiling, fewer at each submit's ends than after every dispatch.
TEST(CliRun, SummaryCountsTheTimestampsOfEachDensity) {
  const auto decode_timestamps = [](const char* profile) {
    const std::string decode =
        summary_block(std::string("--model tiny-dense --prompt 4 --decode 3 --submit per-token --profile ") + profile,
                      "decode");
    const size_t at = decode.find(" descriptor writes, ");
    EXPECT_NE(at, std::string::npos) << decode;
    return at == std::string::npos ? -1.0 : std::stod(decode.substr(at + 20));
  };
  const double off = decode_timestamps("off"), submit = decode_timestamps("submit"),
               dispatch = decode_timestamps("dispatch");
  EXPECT_EQ(off, 0.0);
  EXPECT_EQ(submit, 2.0);  // one submit a token, a timestamp at each end
  EXPECT_GT(dispatch, 10.0);  // one after each of a tiny model's dozen-odd dispatches
}

// The host's recording time is stated per stage; under one submit it all comes before the GPU
// starts, which the summary says, and not under a shape that submits pieces back to back.
TEST(CliRun, SummaryStatesTheHostRecordingAndWhetherTheGpuWaitedForAllOfIt) {
  const auto prefill = [](const char* submit) {
    return summary_block(
        std::string("--model tiny-dense --prompt 8 --decode 0 --prefill batched --chunk-cols 2 --submit ") + submit,
        "prefill");
  };
  const std::string once = prefill("per-prompt"), pieces = prefill("chunk:4");
  EXPECT_NE(once.find("    host recording: "), std::string::npos) << once;
  EXPECT_NE(once.find(" ms, all of it before the GPU started (one submit"), std::string::npos) << once;
  EXPECT_NE(pieces.find("    host recording: "), std::string::npos) << pieces;
  EXPECT_EQ(pieces.find("before the GPU started"), std::string::npos) << pieces;
  const size_t ms = once.find("host recording: ") + 16;
  EXPECT_GT(std::stod(once.substr(ms)), 0.0) << once;
}

// The copy bandwidth is measured at the start (the roofline) and again at the end, and the
// result file holds both, so a device that changed while it ran shows in the file itself.
nlohmann::json device_block(const std::string& path) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return nlohmann::json();
  std::string text;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  fclose(f);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  return doc.is_object() ? doc.value("device", nlohmann::json()) : nlohmann::json();
}

TEST(CliRun, TheResultHoldsTheCopyBandwidthAtTheStartAndTheEnd) {
  const std::string out = "/tmp/phasebench-cli-bandwidth.json";
  std::remove(out.c_str());
  const Result r = run("run --model tiny-dense --prompt 4 --decode 2 --repetitions 1 --warmup 0 --out " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("  copy bandwidth: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" GB/s at the end ("), std::string::npos) << r.out;
  const nlohmann::json device = device_block(out);
  ASSERT_TRUE(device.is_object()) << out;
  EXPECT_GT(device.value("copy_bandwidth_gbps", 0.0), 0) << device;
  EXPECT_GT(device.value("copy_bandwidth_end_gbps", 0.0), 0) << device;

  // Without the probe at the start there is nothing to set the end beside.
  const Result none = run("run --model tiny-dense --prompt 4 --decode 2 --repetitions 1 --warmup 0 --no-bandwidth "
                          "--out " + out);
  ASSERT_EQ(none.status, 0) << none.out;
  EXPECT_EQ(none.out.find("copy bandwidth:"), std::string::npos) << none.out;
  EXPECT_FALSE(device_block(out).contains("copy_bandwidth_end_gbps")) << device_block(out);
}

TEST(CliSweep, TheResultHoldsTheCopyBandwidthAtTheStartAndTheEnd) {
  const char* path = "/tmp/phasebench-bandwidth-scenario.json";
  FILE* f = fopen(path, "w");
  fputs("{\"name\": \"bandwidth\", \"model\": \"tiny-dense\", \"workload\": {\"prompt_tokens\": 4, "
        "\"decode_tokens\": 2}, \"axes\": {\"barriers\": [\"global\", \"ledger\"]}, "
        "\"repetitions\": {\"warmup\": 0, \"min\": 1, \"max\": 1}}",
        f);
  fclose(f);
  const std::string out = "/tmp/phasebench-bandwidth-sweep.json";
  std::remove(out.c_str());
  const Result r = run(std::string("sweep ") + path + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(" GB/s at the end ("), std::string::npos) << r.out;
  const nlohmann::json device = device_block(out);
  EXPECT_GT(device.value("copy_bandwidth_end_gbps", 0.0), 0) << device;
}

TEST(CliSweep, BadScenarioFileIsAUsageErrorNamingFileAndPointer) {
  const char* path = "/tmp/phasebench-bad-scenario.json";
  FILE* f = fopen(path, "w");
  fputs("{\"name\": \"x\", \"axes\": {\"barriers\": [\"global\", \"sometimes\"]}}", f);
  fclose(f);
  const Result r = run(std::string("sweep ") + path + " --no-bandwidth");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(path), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/axes/barriers/1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("global, buffer, ledger, none"), std::string::npos) << r.out;
}

TEST(CliSweep, ShardFlagIsChecked) {
  const char* path = "/tmp/phasebench-shard-scenario.json";
  FILE* f = fopen(path, "w");
  fputs("{\"name\": \"x\", \"model\": \"tiny-dense\"}", f);
  fclose(f);
  const Result r = run(std::string("sweep ") + path + " --shard 3/2 --no-bandwidth");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("1 <= K <= N"), std::string::npos) << r.out;
}

}  // namespace
