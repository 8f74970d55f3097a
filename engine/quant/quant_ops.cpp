#include "engine/quant/quant_ops.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "engine/quant/device_layout.h"
#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kLocalSize = 64;  // local_size_x of both kernels

}  // namespace

std::array<uint32_t, 3> grid_for(uint64_t invocations, uint32_t local_size) {
  const uint64_t groups = std::max<uint64_t>(1, (invocations + local_size - 1) / local_size);
  const uint64_t x = std::min<uint64_t>(groups, kMaxGroupsX);
  const uint64_t y = (groups + x - 1) / x;
  if (y > kMaxGroupsX) {
    throw UsageError("a dispatch of " + std::to_string(invocations) +
                     " invocations exceeds 65535 x 65535 workgroups");
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

std::vector<BlockRange> synth_pieces(WeightFormat format, uint64_t rows, uint64_t cols, const DeviceInfo& info) {
  const uint64_t per_block = block_bytes(format);
  const uint64_t blocks_per_row = row_bytes(format, cols) / per_block;
  const uint64_t blocks = rows * blocks_per_row;
  const uint64_t alignment = info.min_storage_buffer_offset_alignment;
  uint64_t unit = alignment / std::gcd(per_block, alignment);  // blocks between allowed offsets
  if (has_device_layout(format)) unit = std::lcm(unit, blocks_per_row * device_rows_multiple(format));
  uint64_t piece = std::min<uint64_t>({blocks, info.max_storage_buffer_range / per_block, 1ull << 24});
  if (piece < blocks) piece -= piece % unit;
  if (piece == 0) {
    throw UsageError("synthetic " + std::string(format_name(format)) + " rows of " + std::to_string(cols) +
                     " weights do not fit one binding of " + std::to_string(info.max_storage_buffer_range) +
                     " bytes in whole rows");
  }
  std::vector<BlockRange> pieces;
  for (uint64_t first = 0; first < blocks; first += piece) pieces.push_back({first, std::min(piece, blocks - first)});
  return pieces;
}

Op synth_weights_op(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t first_block,
                    uint64_t block_count, SyntheticScale scale, const Buffer& out,
                    VkDeviceSize out_offset, uint64_t cols) {
  if (block_count == 0 || first_block + block_count > (1ull << 32)) {
    throw UsageError("synth_weights_op: blocks [" + std::to_string(first_block) + ", +" +
                     std::to_string(block_count) + ") must be non-empty and below 2^32");
  }
  const uint64_t blocks_per_row = row_bytes(format, cols) / block_bytes(format);
  const uint64_t blocks_per_unit = blocks_per_row * device_rows_multiple(format);
  if (has_device_layout(format) &&
      (blocks_per_row == 0 || first_block % blocks_per_unit != 0 || block_count % blocks_per_row != 0)) {
    throw UsageError("synth_weights_op (" + std::string(format_name(format)) + "): blocks [" +
                     std::to_string(first_block) + ", +" + std::to_string(block_count) + ") must be whole rows of " +
                     std::to_string(blocks_per_row) + " blocks from a multiple of " +
                     std::to_string(device_rows_multiple(format)) + " rows: the device layout orders their bytes");
  }
  Op op;
  op.kernel = &kernel("synth_weights");
  op.spec.set(0, static_cast<int32_t>(format));
  op.bindings = {BufferRef{&out, out_offset, block_count * block_bytes(format), Access::Write}};
  op.push = PushConstants::of(SynthWeightsPush{seed, tensor_id, static_cast<uint32_t>(first_block),
                                               static_cast<uint32_t>(block_count),
                                               scale.scale_bits, static_cast<uint32_t>(blocks_per_row)});
  op.groups = grid_for(block_count, kLocalSize);
  op.label = "synth_weights";
  return op;
}

Op dequantize_rows_op(WeightFormat format, BufferRef weights, uint64_t cols, uint64_t first_weight,
                      uint64_t count, const Buffer& out, VkDeviceSize out_offset) {
  const uint64_t per_block = block_weights(format);
  const std::string what = "dequantize_rows_op (" + std::string(format_name(format)) + ")";
  require_device_cols(format, cols, what);
  if (first_weight % per_block != 0) {
    throw UsageError(what + ": first weight " + std::to_string(first_weight) +
                     " is not a multiple of the block size " + std::to_string(per_block));
  }
  if (count == 0 || first_weight + count > (1ull << 32)) {
    throw UsageError(what + ": weights [" + std::to_string(first_weight) + ", +" +
                     std::to_string(count) + ") must be non-empty and below 2^32");
  }
  // Whole rows: the device layout keeps a row's (Q6_K: a group's) scales after its quants.
  const uint64_t rows = weights.size / row_bytes(format, cols);
  const uint64_t end_row = (first_weight + count + cols - 1) / cols;
  if (rows < end_row) {
    throw UsageError(what + ": weights up to " + std::to_string(first_weight + count) + " need " +
                     std::to_string(end_row * row_bytes(format, cols)) +
                     " bytes; the bound range holds " + std::to_string(weights.size));
  }
  weights.access = Access::Read;
  Op op;
  op.kernel = &kernel("dequantize_rows");
  op.spec.set(0, static_cast<int32_t>(format));
  op.bindings = {weights, BufferRef{&out, out_offset, count * sizeof(float), Access::Write}};
  op.push = PushConstants::of(
      DequantizeRowsPush{static_cast<uint32_t>(first_weight), static_cast<uint32_t>(count),
                         static_cast<uint32_t>(cols), static_cast<uint32_t>(rows)});
  op.groups = grid_for(count, kLocalSize);
  op.label = "dequantize_rows";
  return op;
}

}  // namespace pb
