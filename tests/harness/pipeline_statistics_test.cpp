// The driver's pipeline statistics (harness/pipeline_statistics.h): captured where the device
// has VK_KHR_pipeline_executable_properties, refused with a clear error where it does not
// (lavapipe in the test environment), and their counter names.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/errors.h"
#include "harness/pipeline.h"
#include "harness/pipeline_statistics.h"
#include "tests/harness/test_ops.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

TEST(StatisticKey, LowerCaseWordsJoinedByUnderscores) {
  EXPECT_EQ(statistic_key("Register Count"), "register_count");
  EXPECT_EQ(statistic_key("  Spilled VGPRs "), "spilled_vgprs");
  EXPECT_EQ(statistic_key("LDS size (bytes)"), "lds_size_bytes");
  EXPECT_EQ(statistic_key("Compute Shader/Code size"), "compute_shader_code_size");
  EXPECT_EQ(statistic_key("!!"), "");
}

class PipelineStatisticsTest : public GpuTest {};

TEST_F(PipelineStatisticsTest, CapturedWhereTheDeviceHasThemRefusedWhereNot) {
  PipelineSet pipelines(device(), nullptr);
  const Kernel& k = kernel("test_affine");
  if (!device().info().caps.pipeline_executable_info) {
    try {
      pipelines.capture_statistics();
      FAIL() << "expected a UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("VK_KHR_pipeline_executable_properties"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(pipelines.get({&k, SpecConstants{}.set(0, 2)}).statistics.empty());
    return;
  }
  const auto& before = pipelines.get({&k, SpecConstants{}.set(0, 2)});
  EXPECT_TRUE(before.statistics.empty());  // created before capture was asked for
  pipelines.capture_statistics();
  const auto& p = pipelines.get({&k, SpecConstants{}.set(0, 5)});
  ASSERT_FALSE(p.statistics.empty());
  for (const PipelineStatistic& s : p.statistics) {
    EXPECT_FALSE(statistic_key(s.name).empty()) << s.name;
    EXPECT_TRUE(std::isfinite(s.value)) << s.name;
    std::cout << "[ statistics ] " << s.name << " = " << s.value << " (" << s.description << ")\n";
  }
  // Capturing does not change what the pipeline computes.
  constexpr uint32_t n = 70;
  std::vector<float> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = static_cast<float>(i);
  Buffer x = upload_floats(input, "x");
  Buffer y(device(), n * 4, MemoryUse::Device, "y");
  run_ops(std::vector<Op>{affine(x, y, n, 5, 1.0f)});
  const auto out = download_floats(y, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out[i], 5.0f * i + 1.0f);
}

}  // namespace
}  // namespace pb::test
