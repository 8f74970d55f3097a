#include "engine/quant/quant_ops.h"

#include <algorithm>
#include <string>

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

Op synth_weights_op(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t first_block,
                    uint64_t block_count, SyntheticScale scale, const Buffer& out,
                    VkDeviceSize out_offset) {
  if (block_count == 0 || first_block + block_count > (1ull << 32)) {
    throw UsageError("synth_weights_op: blocks [" + std::to_string(first_block) + ", +" +
                     std::to_string(block_count) + ") must be non-empty and below 2^32");
  }
  Op op;
  op.kernel = &kernel("synth_weights");
  op.spec.set(0, static_cast<int32_t>(format));
  op.bindings = {BufferRef{&out, out_offset, block_count * block_bytes(format), Access::Write}};
  op.push = PushConstants::of(SynthWeightsPush{seed, tensor_id, static_cast<uint32_t>(first_block),
                                               static_cast<uint32_t>(block_count),
                                               scale.scale_bits});
  op.groups = grid_for(block_count, kLocalSize);
  op.label = "synth_weights";
  return op;
}

Op dequantize_rows_op(WeightFormat format, BufferRef weights, uint64_t first_weight,
                      uint64_t count, const Buffer& out, VkDeviceSize out_offset) {
  const uint64_t per_block = block_weights(format);
  const std::string what = "dequantize_rows_op (" + std::string(format_name(format)) + ")";
  if (first_weight % per_block != 0) {
    throw UsageError(what + ": first weight " + std::to_string(first_weight) +
                     " is not a multiple of the block size " + std::to_string(per_block));
  }
  if (count == 0 || first_weight + count > (1ull << 32)) {
    throw UsageError(what + ": weights [" + std::to_string(first_weight) + ", +" +
                     std::to_string(count) + ") must be non-empty and below 2^32");
  }
  const uint64_t end_block = (first_weight + count + per_block - 1) / per_block;
  if (weights.size < end_block * block_bytes(format)) {
    throw UsageError(what + ": weights up to " + std::to_string(first_weight + count) + " need " +
                     std::to_string(end_block * block_bytes(format)) +
                     " bytes; the bound range holds " + std::to_string(weights.size));
  }
  weights.access = Access::Read;
  Op op;
  op.kernel = &kernel("dequantize_rows");
  op.spec.set(0, static_cast<int32_t>(format));
  op.bindings = {weights, BufferRef{&out, out_offset, count * sizeof(float), Access::Write}};
  op.push = PushConstants::of(
      DequantizeRowsPush{static_cast<uint32_t>(first_weight), static_cast<uint32_t>(count)});
  op.groups = grid_for(count, kLocalSize);
  op.label = "dequantize_rows";
  return op;
}

}  // namespace pb
