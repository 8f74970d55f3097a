// kernels/synth_weights.comp writes exactly the bytes of pb::generate_synthetic_blocks, for
// every format, whole tensors and sub-ranges, and nothing outside the range it is given.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "engine/quant/device_layout.h"
#include "engine/quant/quant_ops.h"
#include "engine/quant/synthetic.h"
#include "harness/device_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/support/gpu_test.h"

namespace pb::test {
namespace {

constexpr uint32_t kSentinel = 0xA5A5A5A5u;

class QuantSynthGpu : public GpuTest {};

uint64_t round_up4(uint64_t n) { return (n + 3) / 4 * 4; }

// The CPU's GGUF bytes of the blocks, in the device layout of rows of `cols` weights.
std::vector<uint8_t> cpu_blocks(WeightFormat f, uint32_t seed, uint32_t id, uint64_t first,
                                uint64_t count, SyntheticScale scale, uint64_t cols) {
  std::vector<uint8_t> out(count * block_bytes(f));
  generate_synthetic_blocks(f, seed, id, first, count, scale, out);
  return device_rows(f, cols, out);
}

// Runs the op into a sentinel-filled buffer of `buffer_bytes` and returns all its bytes.
std::vector<uint8_t> run_into(const Op& op, const Buffer& buffer) {
  transfer().fill(buffer, 0, buffer.size(), kSentinel);
  run_ops(std::vector<Op>{op});
  return transfer().download_as<uint8_t>(buffer, 0, buffer.size());
}

TEST_F(QuantSynthGpu, InterfaceMatchesTheCppStructs) {
  const Kernel& k = kernel("synth_weights");
  EXPECT_EQ(k.push_size(), sizeof(SynthWeightsPush));
  ASSERT_EQ(k.binding_count(), 1u);
  EXPECT_FALSE(k.reflection.bindings[0].read_only);
  ASSERT_EQ(k.reflection.spec_ids, std::vector<uint32_t>{0});
}

TEST_F(QuantSynthGpu, WholeTensorsMatchTheCpuBytes) {
  for (WeightFormat f : kAllWeightFormats) {
    const SyntheticScale scale = synthetic_scale(f, 0.02f);
    for (uint64_t count : {1ull, 37ull, 300ull, 4099ull}) {
      if (block_weights(f) > 1 && count > 300) continue;  // keep lavapipe quick
      Buffer out(device(), round_up4(count * block_bytes(f)), MemoryUse::Device, "synth");
      const uint64_t cols = count * block_weights(f);  // one row
      const auto got = run_into(synth_weights_op(f, 42, 7, 0, count, scale, out, 0, cols), out);
      const auto want = cpu_blocks(f, 42, 7, 0, count, scale, cols);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << format_name(f) << ", " << count << " blocks";
      for (size_t i = want.size(); i < got.size(); ++i) {
        EXPECT_EQ(got[i], 0xA5) << "write past the range, " << format_name(f);
      }
    }
  }
}

TEST_F(QuantSynthGpu, SubRangeAtANonZeroBlockMatchesAndStaysInside) {
  const uint64_t align = device().info().min_storage_buffer_offset_alignment;
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t bytes = block_bytes(f);
    // From the first block whose byte offset the device can bind; Q8_0 (device layout) in rows
    // of that many blocks, so the range is whole rows, the others in rows of one block, Q6_K
    // from a group of 8 rows (9 rows: a group and a short last one).
    const uint64_t aligned = std::lcm(align, bytes) / bytes;
    const uint64_t per_row = f == WeightFormat::Q8_0 ? aligned : 1;
    const uint64_t first = std::lcm(aligned, per_row * device_rows_multiple(f));
    const uint64_t total = first + 14 * per_row, count = 9 * per_row;
    const uint64_t cols = per_row * block_weights(f);
    const SyntheticScale scale = synthetic_scale(f, 0.1f);
    Buffer out(device(), round_up4(total * bytes), MemoryUse::Device, "synth tensor");
    const auto got =
        run_into(synth_weights_op(f, 3, 1234, first, count, scale, out, first * bytes, cols), out);
    const auto want = cpu_blocks(f, 3, 1234, first, count, scale, cols);
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin() + first * bytes))
        << format_name(f) << " blocks from " << first;
    for (size_t i = 0; i < got.size(); ++i) {
      if (i >= first * bytes && i < (first + count) * bytes) continue;
      ASSERT_EQ(got[i], 0xA5) << "byte " << i << " outside the range, " << format_name(f);
    }
  }
}

TEST_F(QuantSynthGpu, TwoDimensionalGridCoversEveryBlock) {
  // 4 workgroups as a 2 x 2 grid: invocation (x, y) handles block x + y * 128.
  const WeightFormat f = WeightFormat::Q8_0;
  const uint64_t count = 250;
  const SyntheticScale scale = synthetic_scale(f, 0.05f);
  Buffer out(device(), round_up4(count * block_bytes(f)), MemoryUse::Device, "synth 2d");
  const uint64_t cols = 5 * 32;  // 50 rows of 5 blocks
  Op op = synth_weights_op(f, 9, 9, 0, count, scale, out, 0, cols);
  op.groups = {2, 2, 1};
  const auto got = run_into(op, out);
  const auto want = cpu_blocks(f, 9, 9, 0, count, scale, cols);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
}

TEST(QuantOps, GridFoldsIntoTwoDimensions) {
  EXPECT_EQ(grid_for(1, 64), (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(grid_for(64 * 65535ull, 64), (std::array<uint32_t, 3>{65535, 1, 1}));
  EXPECT_EQ(grid_for(64 * 65535ull + 1, 64), (std::array<uint32_t, 3>{65535, 2, 1}));
  EXPECT_THROW(grid_for(64ull * 65535 * 65536, 64), UsageError);
}

TEST(QuantOps, RangesBeyondTheBlockCounterAreRejected) {
  Buffer none;
  EXPECT_THROW(synth_weights_op(WeightFormat::F16, 0, 0, (1ull << 32) - 1, 2, {}, none, 0, 1),
               UsageError);
  EXPECT_THROW(synth_weights_op(WeightFormat::F16, 0, 0, 0, 0, {}, none, 0, 1), UsageError);
}

// Q8_0's device layout orders the bytes of a whole row, Q6_K's those of a group of 8 rows, so
// a piece must be whole rows, and a Q6_K piece start on a group.
TEST(QuantOps, DeviceLayoutPiecesAreWholeRows) {
  Buffer none;
  EXPECT_THROW(synth_weights_op(WeightFormat::Q8_0, 0, 0, 4, 16, {}, none, 0, 256), UsageError);
  EXPECT_THROW(synth_weights_op(WeightFormat::Q8_0, 0, 0, 0, 12, {}, none, 0, 256), UsageError);
  EXPECT_NO_THROW(synth_weights_op(WeightFormat::Q8_0, 0, 0, 8, 16, {}, none, 0, 128));
  EXPECT_THROW(synth_weights_op(WeightFormat::Q6_K, 0, 0, 4, 8, {}, none, 0, 256), UsageError);
  EXPECT_NO_THROW(synth_weights_op(WeightFormat::Q6_K, 0, 0, 8, 5, {}, none, 0, 256));  // a short last group
}

TEST(QuantOps, SynthPiecesStartOnAlignedOffsetsAndOnRows) {
  DeviceInfo info;
  info.min_storage_buffer_offset_alignment = 64;
  info.max_storage_buffer_range = 40000;
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t rows = 300, cols = 512, per_row = row_bytes(f, cols) / block_bytes(f);
    const auto pieces = synth_pieces(f, rows, cols, info);
    ASSERT_GT(pieces.size(), 1u) << format_name(f);
    uint64_t next = 0;
    for (const BlockRange& p : pieces) {
      EXPECT_EQ(p.first, next) << format_name(f);
      EXPECT_EQ(p.first * block_bytes(f) % 64, 0u) << format_name(f);
      EXPECT_LE(p.count * block_bytes(f), info.max_storage_buffer_range) << format_name(f);
      if (has_device_layout(f)) {
        EXPECT_EQ(p.first % (per_row * device_rows_multiple(f)), 0u) << format_name(f);
      }
      next = p.first + p.count;
    }
    EXPECT_EQ(next, rows * per_row) << format_name(f);
  }
  info.max_storage_buffer_range = 1000;  // less than one Q8_0 row of 4096
  EXPECT_THROW(synth_pieces(WeightFormat::Q8_0, 2, 4096, info), UsageError);
}

}  // namespace
}  // namespace pb::test
