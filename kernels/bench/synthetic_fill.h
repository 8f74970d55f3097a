// Device buffers of synthetic data, generated on the device by kernels/synth_weights.comp: the
// benchmarks never time zeros (a GPU may compress or skip them), and a copy of gigabytes is
// never built on the host. Weights use the engine's synthetic tensors; activations and the KV
// cache use the same generator in F32 or F16 with a standard deviation near 1.
#pragma once

#include <cstdint>
#include <string>

#include "engine/quant/weight_format.h"
#include "harness/buffer.h"

namespace pb {
class Device;
class PipelineSet;
}  // namespace pb

namespace pb::bench {

// A rows x cols tensor in `format` (tensor_bytes(format, rows, cols) bytes), synthetic tensor
// `tensor_id` of seed 0 with weights of about `target_std`. Throws UsageError for a shape the
// format cannot hold.
Buffer synthetic_tensor(Device& device, PipelineSet& pipelines, WeightFormat format, uint64_t rows,
                        uint64_t cols, uint32_t tensor_id, float target_std, const std::string& name);

// `count` floats (F32) or halves (F16) of about unit standard deviation.
Buffer synthetic_values(Device& device, PipelineSet& pipelines, WeightFormat format, uint64_t count,
                        uint32_t tensor_id, const std::string& name);

}  // namespace pb::bench
