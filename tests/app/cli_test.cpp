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
