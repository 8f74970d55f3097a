#include "kernels/bench/synthetic_fill.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/quant/quant_ops.h"
#include "harness/device.h"
#include "harness/immediate.h"

namespace pb::bench {

Buffer synthetic_tensor(Device& device, PipelineSet& pipelines, WeightFormat format, uint64_t rows,
                        uint64_t cols, uint32_t tensor_id, float target_std, const std::string& name) {
  const uint64_t bytes = tensor_bytes(format, rows, cols);
  Buffer buffer(device, bytes, MemoryUse::Device, name);
  const uint64_t per_block = block_bytes(format);
  const uint64_t blocks = bytes / per_block;
  // Pieces within one binding and 2^24 blocks (one dispatch's grid), each starting at an offset
  // the device's storage-buffer alignment allows.
  const auto& info = device.info();
  uint64_t piece = std::min<uint64_t>({blocks, info.max_storage_buffer_range / per_block, 1ull << 24});
  const uint64_t step = info.min_storage_buffer_offset_alignment /
                        std::gcd(per_block, info.min_storage_buffer_offset_alignment);
  if (piece < blocks) piece -= piece % step;
  const SyntheticScale scale = synthetic_scale(format, target_std);
  std::vector<Op> ops;
  for (uint64_t first = 0; first < blocks; first += piece) {
    const uint64_t count = std::min(piece, blocks - first);
    ops.push_back(synth_weights_op(format, 0, tensor_id, first, count, scale, buffer, first * per_block));
    if (ops.size() == 64) {  // bounded command buffers for multi-gigabyte tensors
      run_immediately(device, pipelines, ops);
      ops.clear();
    }
  }
  run_immediately(device, pipelines, ops);
  return buffer;
}

Buffer synthetic_values(Device& device, PipelineSet& pipelines, WeightFormat format, uint64_t count,
                        uint32_t tensor_id, const std::string& name) {
  return synthetic_tensor(device, pipelines, format, 1, count, tensor_id, 1.0f, name);
}

}  // namespace pb::bench
