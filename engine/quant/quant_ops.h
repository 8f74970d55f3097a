// Ops that run the weight-format kernels on the device: synthetic weight generation
// (kernels/synth_weights.comp) and dequantization to f32 (kernels/dequantize_rows.comp). The
// push-constant structs are the C++ side of those kernels' push blocks.
#pragma once

#include <array>
#include <cstdint>

#include "engine/quant/synthetic.h"
#include "engine/quant/weight_format.h"
#include "harness/op.h"

namespace pb {

struct SynthWeightsPush {
  uint32_t seed;
  uint32_t tensor_id;
  uint32_t first_block;  // block index within the tensor of the output range's byte 0
  uint32_t block_count;  // blocks to write (F32/F16: weights)
  uint32_t scale_bits;   // SyntheticScale::scale_bits
};

struct DequantizeRowsPush {
  uint32_t first_weight;  // weight index within the weights binding, block-aligned
  uint32_t count;         // weights to dequantize
};

// Workgroup counts for `invocations` invocations of a 1-D kernel with `local_size` lanes,
// folded into a 2-D grid beyond 65535 groups (the kernels index x + y * groups.x * local_size).
std::array<uint32_t, 3> grid_for(uint64_t invocations, uint32_t local_size);

// Writes blocks [first_block, first_block + block_count) of synthetic tensor (seed, tensor_id)
// to `out` from byte `out_offset`, which must satisfy the device's storage-buffer offset
// alignment. Same bytes as generate_synthetic_blocks. Throws UsageError when the blocks exceed
// the 32-bit block counter or block_count is zero.
Op synth_weights_op(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t first_block,
                    uint64_t block_count, SyntheticScale scale, const Buffer& out,
                    VkDeviceSize out_offset);

// Dequantizes weights [first_weight, first_weight + count) of the tensor bound as `weights`
// (its byte 0 is the start of a block) into `count` floats of `out` from byte `out_offset`.
// Throws UsageError when first_weight is not block-aligned, the weights range is too small,
// or the indices exceed 32 bits.
Op dequantize_rows_op(WeightFormat format, BufferRef weights, uint64_t first_weight,
                      uint64_t count, const Buffer& out, VkDeviceSize out_offset);

}  // namespace pb
