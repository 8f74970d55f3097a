// Ops that run the weight-format kernels on the device: synthetic weight generation
// (kernels/synth_weights.comp) and dequantization to f32 (kernels/dequantize_rows.comp). The
// push-constant structs are the C++ side of those kernels' push blocks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/quant/synthetic.h"
#include "engine/quant/weight_format.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

struct SynthWeightsPush {
  uint32_t seed;
  uint32_t tensor_id;
  uint32_t first_block;  // block index within the tensor of the output range's byte 0
  uint32_t block_count;  // blocks to write (F32/F16: weights)
  uint32_t scale_bits;   // SyntheticScale::scale_bits
  uint32_t blocks_per_row;  // Q8_0 and Q6_K (device layouts): blocks per row
};

struct DequantizeRowsPush {
  uint32_t first_weight;  // weight index within the weights binding, block-aligned
  uint32_t count;         // weights to dequantize
  uint32_t cols;          // weights per row
  uint32_t rows;          // rows bound (Q6_K: a tensor's last group of rows may be short)
};

// Workgroup counts for `invocations` invocations of a 1-D kernel with `local_size` lanes,
// folded into a 2-D grid beyond 65535 groups (the kernels index x + y * groups.x * local_size).
std::array<uint32_t, 3> grid_for(uint64_t invocations, uint32_t local_size);

// Blocks [first, first + count) of a tensor.
struct BlockRange {
  uint64_t first;
  uint64_t count;
};

// The pieces synth_weights_op writes a tensor of rows x cols weights in: each within one binding
// and one dispatch's grid, starting at an offset the device's storage-buffer alignment allows
// (from a tensor start that does) and, for a format with a device layout, on a row (Q6_K: on a
// group of 8 rows). Throws UsageError when one such unit does not fit a binding.
std::vector<BlockRange> synth_pieces(WeightFormat format, uint64_t rows, uint64_t cols, const DeviceInfo& info);

// Writes blocks [first_block, first_block + block_count) of synthetic tensor (seed, tensor_id),
// whose rows hold `cols` weights, to `out` from byte `out_offset`, which must satisfy the
// device's storage-buffer offset alignment. The bytes of generate_synthetic_blocks, in the
// device layout (device_layout.h). Throws UsageError when the blocks exceed the 32-bit block
// counter, block_count is zero, or, for a format with a device layout, the blocks are not
// whole rows (for Q6_K from a multiple of 8 rows).
Op synth_weights_op(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t first_block,
                    uint64_t block_count, SyntheticScale scale, const Buffer& out,
                    VkDeviceSize out_offset, uint64_t cols);

// Dequantizes weights [first_weight, first_weight + count) of the tensor bound as `weights`
// into `count` floats of `out` from byte `out_offset`. The range holds whole rows of `cols`
// weights in the device layout from its byte 0 to its end (for Q6_K from a group of 8 rows to
// the end of one or of the tensor). Throws UsageError when first_weight is not block-aligned,
// the rows do not suit the device layout, the range does not hold the rows the weights are
// in, or the indices exceed 32 bits.
Op dequantize_rows_op(WeightFormat format, BufferRef weights, uint64_t cols, uint64_t first_weight,
                      uint64_t count, const Buffer& out, VkDeviceSize out_offset);

}  // namespace pb
