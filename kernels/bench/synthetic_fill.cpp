#include "kernels/bench/synthetic_fill.h"

#include <algorithm>
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
  const SyntheticScale scale = synthetic_scale(format, target_std);
  std::vector<Op> ops;
  for (const BlockRange& p : synth_pieces(format, rows, cols, device.info())) {
    ops.push_back(synth_weights_op(format, 0, tensor_id, p.first, p.count, scale, buffer, p.first * per_block, cols));
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
