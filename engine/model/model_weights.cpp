#include "engine/model/model_weights.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "engine/quant/quant_ops.h"
#include "engine/quant/synthetic.h"
#include "harness/device.h"
#include "harness/errors.h"
#include "harness/immediate.h"
#include "harness/transfer.h"

namespace pb {
namespace {

std::string gib(uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return std::to_string(bytes) + " bytes (" + text + ")";
}

// Synthetic blocks are generated in pieces that fit one binding and one dispatch.
void generate_matrix(Device& device, PipelineSet& pipelines, const DeviceTensor& t, uint32_t seed) {
  const uint64_t bytes_per_block = block_bytes(t.spec.format);
  const uint64_t blocks = t.spec.bytes() / bytes_per_block;
  const uint64_t alignment = device.info().min_storage_buffer_offset_alignment;
  // Blocks per piece: within the binding range, and a multiple of the alignment in bytes.
  uint64_t piece = std::min<uint64_t>(blocks, device.info().max_storage_buffer_range / bytes_per_block);
  piece = std::min<uint64_t>(piece, 1ull << 24);
  const uint64_t step = alignment / std::gcd(bytes_per_block, alignment);
  if (piece < blocks) piece -= piece % step;
  const SyntheticScale scale = synthetic_scale(t.spec.format, t.spec.target_std);
  std::vector<Op> ops;
  for (uint64_t first = 0; first < blocks; first += piece) {
    const uint64_t count = std::min(piece, blocks - first);
    ops.push_back(synth_weights_op(t.spec.format, seed, t.spec.id, first, count, scale, t.buffer,
                                   first * bytes_per_block));
    if (ops.size() == 64) {
      run_immediately(device, pipelines, ops);
      ops.clear();
    }
  }
  run_immediately(device, pipelines, ops);
}

}  // namespace

void require_device_memory(const Device& device, const std::string& what, uint64_t bytes,
                           const std::string& breakdown) {
  const uint64_t available = device.info().device_local_bytes();
  if (bytes > available) {
    throw UsageError(what + " needs " + gib(bytes) + " of device memory (" + breakdown +
                     "); device '" + device.info().name + "' has " + gib(available) +
                     " in its largest device-local heap. Use a smaller preset (tiny-*) or a "
                     "device with more memory");
  }
}

ModelWeights ModelWeights::allocate(Device& device, const ModelConfig& config,
                                    std::vector<TensorSpec> plan) {
  ModelWeights w;
  w.config_ = config;
  w.tensors_.reserve(plan.size());
  for (auto& spec : plan) {
    const uint64_t bytes = spec.bytes();
    std::string name = spec.name;
    w.index_[{spec.role, spec.layer}] = w.tensors_.size();
    w.tensors_.push_back({std::move(spec), Buffer(device, bytes, MemoryUse::Device, name)});
  }
  return w;
}

ModelWeights ModelWeights::synthetic(Device& device, PipelineSet& pipelines, Transfer& transfer,
                                     const ModelConfig& config, std::vector<TensorSpec> plan,
                                     uint32_t seed) {
  ModelWeights w = allocate(device, config, std::move(plan));
  for (const DeviceTensor& t : w.tensors_) {
    if (t.spec.host_values) {
      const auto values = synthetic_f32_values(seed, t.spec.id, t.spec.total_rows() * t.spec.cols,
                                               t.spec.center, t.spec.spread);
      transfer.upload_from<float>(t.buffer, 0, values);
    } else {
      generate_matrix(device, pipelines, t, seed);
    }
  }
  return w;
}

bool ModelWeights::has(TensorRole role, int32_t layer) const {
  return index_.count({role, layer}) > 0;
}

const DeviceTensor& ModelWeights::get(TensorRole role, int32_t layer) const {
  const auto it = index_.find({role, layer});
  if (it == index_.end()) {
    throw std::out_of_range("model '" + config_.name + "' has no tensor of role " +
                            std::to_string(static_cast<int>(role)) + " in layer " +
                            std::to_string(layer));
  }
  return tensors_[it->second];
}

uint64_t ModelWeights::bytes() const {
  uint64_t total = 0;
  for (const auto& t : tensors_) total += t.buffer.size();
  return total;
}

}  // namespace pb
