// The command line as a user meets it: exit statuses and messages of `phasebench devices`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Result {
  int status;
  std::string output;  // stdout and stderr together
};

Result run(const std::string& args) {
  const std::string command = std::string(PHASEBENCH_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  Result r{-1, ""};
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

TEST(Cli, DevicesListsTheCpuDeviceWithItsFeatures) {
  const Result r = run("devices");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("llvmpipe"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("push descriptors yes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("timestamps: 64 valid bits"), std::string::npos) << r.output;
}

TEST(Cli, DevicesJsonIsAListWithOneDefault) {
  const Result r = run("devices --json");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto list = nlohmann::json::parse(r.output);
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
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("roofline"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GB/s"), std::string::npos) << r.output;
}

TEST(Cli, UnknownFlagIsAUsageError) {
  const Result r = run("devices --no-such-flag");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--no-such-flag"), std::string::npos) << r.output;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  EXPECT_EQ(run("frobnicate").status, 2);
}

TEST(Cli, MissingDeviceListsTheDevices) {
  const Result r = run("devices --device 42");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no device with that index"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llvmpipe"), std::string::npos) << r.output;
}

TEST(Cli, NoDriverSaysHowToInstallLavapipe) {
  // The loader's own variable points it at no driver at all.
  const Result r = run("devices 2>&1; exit $?");
  ASSERT_EQ(r.status, 0);
  const std::string command = std::string("VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json ") +
                              PHASEBENCH_BINARY + " devices 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(raw), 2) << output;
  EXPECT_NE(output.find("mesa-vulkan-drivers"), std::string::npos) << output;
}

}  // namespace

namespace {

TEST(CliRun, APresetTooLargeForTheDeviceFailsBeforeAllocating) {
  const Result r = run("run --model llama3-8b --no-bandwidth --out /tmp/phasebench-too-large.json");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("needs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("device-local heap"), std::string::npos) << r.output;
}

TEST(CliRun, UnknownPresetAndBadAxisValuesAreUsageErrors) {
  Result r = run("run --model llama9 --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("tiny-dense"), std::string::npos) << r.output;
  r = run("run --model tiny-dense --submit sometimes --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--submit"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("per-layer-nowait"), std::string::npos) << r.output;
  r = run("run --model tiny-dense --prompt twelve --no-bandwidth");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("not an integer"), std::string::npos) << r.output;
}

TEST(CliRun, ReferenceCheckPassesAndProgressIsSilentWhenPiped) {
  const Result r = run("run --model tiny-dense --prompt 5 --decode 3 --repetitions 2 --warmup 0 --reference "
                       "--validate --no-bandwidth --out /tmp/phasebench-cli-run.json");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("matches the CPU reference"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tok/s"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos) << "a progress line was drawn into a pipe";
  const Result t = run("trace /tmp/phasebench-cli-run.json --out /tmp/phasebench-cli-trace.json");
  EXPECT_EQ(t.status, 0) << t.output;
  EXPECT_NE(t.output.find("events"), std::string::npos) << t.output;
}

TEST(CliSweep, BadScenarioFileIsAUsageErrorNamingFileAndPointer) {
  const char* path = "/tmp/phasebench-bad-scenario.json";
  FILE* f = fopen(path, "w");
  fputs("{\"name\": \"x\", \"axes\": {\"barriers\": [\"global\", \"sometimes\"]}}", f);
  fclose(f);
  const Result r = run(std::string("sweep ") + path + " --no-bandwidth");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/axes/barriers/1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("global, buffer, ledger, none"), std::string::npos) << r.output;
}

TEST(CliSweep, ShardFlagIsChecked) {
  const char* path = "/tmp/phasebench-shard-scenario.json";
  FILE* f = fopen(path, "w");
  fputs("{\"name\": \"x\", \"model\": \"tiny-dense\"}", f);
  fclose(f);
  const Result r = run(std::string("sweep ") + path + " --shard 3/2 --no-bandwidth");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("1 <= K <= N"), std::string::npos) << r.output;
}

}  // namespace
