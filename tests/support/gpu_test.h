// Shared GPU test fixture: one Vulkan context on the default device (lavapipe here) with the
// Khronos validation layer and synchronization validation on, for the whole test binary.
// Every helper checks the validation log, so a test that provokes a validation error fails.
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "engine/quant/weight_format.h"
#include "harness/barrier_policy.h"
#include "harness/buffer.h"
#include "harness/device.h"
#include "harness/op.h"
#include "harness/transfer.h"

namespace pb::test {

// The process-wide context (created on first use, validation on).
Context& context();
Device& device();
Transfer& transfer();

// Records `ops` into command buffers (one submit), runs them and waits. Throws CheckFailure
// when the validation layer reported anything.
void run_ops(std::span<const Op> ops, BarrierPolicy barriers = BarrierPolicy::Global);

// Device buffer holding `values`.
Buffer upload_floats(const std::vector<float>& values, const char* name);
std::vector<float> download_floats(const Buffer& buffer, size_t count);

// Device buffer holding rows of `cols` weights given in GGUF's bytes, in the device layout
// the kernels read (engine/quant/device_layout.h), as the model loaders upload them.
Buffer upload_weights(WeightFormat format, uint64_t cols, std::span<const uint8_t> gguf_bytes, const char* name);
// The same into `buffer` from byte `offset`.
void upload_weights_to(const Buffer& buffer, uint64_t offset, WeightFormat format, uint64_t cols,
                       std::span<const uint8_t> gguf_bytes);

// Fails the current test if the validation layer reported an error since the last check.
void expect_validation_clean(const char* where);

// A test base that checks the validation log after every test.
class GpuTest : public ::testing::Test {
 protected:
  void TearDown() override { expect_validation_clean("the test"); }
};

}  // namespace pb::test
