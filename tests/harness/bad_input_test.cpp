// Each bad input gets a message that names what was wrong and what to do.
#include <gtest/gtest.h>

#include "harness/device_select.h"
#include "harness/errors.h"
#include "harness/instance.h"
#include "harness/submit_shape.h"
#include "tests/harness/test_ops.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

// Runs `body`, expecting an exception of type E whose message contains every fragment.
template <typename E, typename F>
void expect_error(F body, std::initializer_list<const char*> fragments) {
  try {
    body();
    FAIL() << "no exception";
  } catch (const E& e) {
    for (const char* f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message: " << e.what() << "\nmissing: " << f;
    }
  }
}

std::vector<DeviceInfo> two_devices() {
  DeviceInfo gpu;
  gpu.index = 0;
  gpu.name = "AMD Radeon RX 9070 (RADV GFX1201)";
  gpu.type = "discrete";
  DeviceInfo cpu;
  cpu.index = 1;
  cpu.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  cpu.type = "cpu";
  return {cpu, gpu};
}

TEST(DeviceSelection, DefaultPrefersDiscreteThenIntegratedThenCpu) {
  EXPECT_EQ(select_device(two_devices(), ""), 1u);
}

TEST(DeviceSelection, ByIndexAndByNameSubstring) {
  EXPECT_EQ(select_device(two_devices(), "0"), 0u);
  EXPECT_EQ(select_device(two_devices(), "radv"), 1u);
  EXPECT_EQ(select_device(two_devices(), "LLVMPIPE"), 0u);
}

TEST(DeviceSelection, UnknownIndexListsTheDevices) {
  expect_error<UsageError>([] { select_device(two_devices(), "7"); },
                           {"--device 7", "no device with that index", "llvmpipe", "RX 9070"});
}

TEST(DeviceSelection, UnknownNameListsTheDevices) {
  expect_error<UsageError>([] { select_device(two_devices(), "nvidia"); },
                           {"'nvidia'", "no device name contains it", "0: llvmpipe"});
}

TEST(DeviceSelection, AmbiguousNameAsksForAnIndex) {
  expect_error<UsageError>([] { select_device(two_devices(), "("); }, {"matches 2", "index"});
}

TEST(DeviceSelection, NoDeviceSaysHowToInstallLavapipe) {
  expect_error<UsageError>([] { select_device({}, ""); }, {"no Vulkan device", "mesa-vulkan-drivers"});
}

TEST(InstanceCreation, MissingLoaderSaysWhatToInstall) {
  expect_error<UsageError>(
      [] { Instance instance(InstanceOptions{false, "libvulkan-does-not-exist.so.1"}); },
      {"no Vulkan loader", "libvulkan1", "mesa-vulkan-drivers"});
}

TEST(SubmitShapes, ParseEveryValueAndRejectTheRest) {
  for (const char* name : {"per-dispatch", "per-layer", "per-layer-nowait", "per-token", "per-token-ahead",
                           "per-prompt", "chunk:64"}) {
    const auto shape = parse_submit_shape(name);
    ASSERT_TRUE(shape) << name;
    EXPECT_EQ(shape->name(), name);
  }
  for (const char* bad : {"per-layers", "per-token-behind", "chunk:", "chunk:0", "chunk:-3", "chunk:12x", ""}) {
    EXPECT_FALSE(parse_submit_shape(bad)) << bad;
  }
}

class OpValidation : public GpuTest {
 protected:
  Buffer x{device(), 1024, MemoryUse::Device, "x"};
  Buffer y{device(), 1024, MemoryUse::Device, "y"};
};

TEST_F(OpValidation, WrongBindingCount) {
  Op op = affine(x, y, 64, 2, 0);
  op.bindings.pop_back();
  expect_error<UsageError>([&] { validate_op(op, device().info()); },
                           {"kernel test_affine", "binds 1 buffers", "declares 2"});
}

TEST_F(OpValidation, PushConstantStructThatDriftedFromTheShader) {
  Op op = affine(x, y, 64, 2, 0);
  op.push = PushConstants::of(uint32_t{64});
  expect_error<UsageError>([&] { validate_op(op, device().info()); },
                           {"push-constant struct is 4 bytes", "block is 8"});
}

TEST_F(OpValidation, WriteToAReadonlyBinding) {
  Op op = affine(x, y, 64, 2, 0);
  op.bindings[0].access = Access::Write;
  expect_error<UsageError>([&] { validate_op(op, device().info()); }, {"binding 0", "readonly"});
}

TEST_F(OpValidation, RangeOutsideItsBuffer) {
  Op op = affine(x, y, 512, 2, 0);  // 2048 bytes of a 1024-byte buffer
  expect_error<UsageError>([&] { validate_op(op, device().info()); }, {"outside buffer 'x'", "1024 bytes"});
}

TEST_F(OpValidation, ZeroWorkgroups) {
  Op op = affine(x, y, 64, 2, 0);
  op.groups = {0, 1, 1};
  expect_error<UsageError>([&] { validate_op(op, device().info()); }, {"zero workgroups"});
}

}  // namespace
}  // namespace pb::test
