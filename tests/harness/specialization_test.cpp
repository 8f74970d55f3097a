// Two specialization values of one shader give two pipelines that compute different things.
#include <gtest/gtest.h>

#include "harness/pipeline.h"
#include "tests/harness/test_ops.h"
#include "harness/errors.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

class SpecializationTest : public GpuTest {};

TEST_F(SpecializationTest, TwoValuesTwoPipelinesTwoResults) {
  constexpr uint32_t n = 100;
  std::vector<float> input(n);
  for (uint32_t i = 0; i < n; ++i) input[i] = static_cast<float>(i);
  Buffer x = upload_floats(input, "x");
  Buffer y2(device(), n * 4, MemoryUse::Device, "y2");
  Buffer y5(device(), n * 4, MemoryUse::Device, "y5");
  run_ops(std::vector<Op>{affine(x, y2, n, 2, 0.0f), affine(x, y5, n, 5, 0.0f)});
  const auto out2 = download_floats(y2, n);
  const auto out5 = download_floats(y5, n);
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(out2[i], 2.0f * i);
    EXPECT_EQ(out5[i], 5.0f * i);
  }

  PipelineSet pipelines(device(), nullptr);
  const Kernel& k = kernel("test_affine");
  const auto& p2 = pipelines.get({&k, SpecConstants{}.set(0, 2)});
  const auto& p5 = pipelines.get({&k, SpecConstants{}.set(0, 5)});
  const auto& p2_again = pipelines.get({&k, SpecConstants{}.set(0, 2)});
  EXPECT_NE(p2.pipeline, p5.pipeline);
  EXPECT_EQ(p2.pipeline, p2_again.pipeline);
  EXPECT_EQ(pipelines.created(), 2u);
  EXPECT_EQ(p2.layout, p5.layout);  // one layout per kernel
}

TEST_F(SpecializationTest, UnknownSpecializationIdIsAnError) {
  PipelineSet pipelines(device(), nullptr);
  const Kernel& k = kernel("test_affine");
  try {
    pipelines.get({&k, SpecConstants{}.set(3, 1)});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no specialization constant id 3"), std::string::npos);
  }
}

TEST(SpirvReflection, DeclaresTheInterfaceOnce) {
  const Kernel& k = kernel("test_affine");
  ASSERT_EQ(k.binding_count(), 2u);
  EXPECT_TRUE(k.reflection.bindings[0].read_only);
  EXPECT_FALSE(k.reflection.bindings[1].read_only);
  EXPECT_EQ(k.push_size(), sizeof(AffinePush));
  ASSERT_EQ(k.reflection.spec_ids.size(), 1u);
  EXPECT_EQ(k.reflection.spec_ids[0], 0u);
  EXPECT_EQ(k.reflection.local_size[0], 64u);
}

}  // namespace
}  // namespace pb::test
