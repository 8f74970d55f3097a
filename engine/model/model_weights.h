// A model's weights on the device, one buffer per tensor of the plan: generated there from the
// synthetic hash (a 20 GB model is never built on the host), or uploaded from a GGUF file.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/tensor_plan.h"
#include "engine/ops/tensor_view.h"
#include "harness/buffer.h"

namespace pb {

class Device;
class PipelineSet;
class Transfer;

struct DeviceTensor {
  TensorSpec spec;
  Buffer buffer;
  TensorView view() const { return TensorView::whole(buffer); }
};

class ModelWeights {
 public:
  // Allocates every tensor of `plan` and fills it with synthetic values for `seed`.
  static ModelWeights synthetic(Device& device, PipelineSet& pipelines, Transfer& transfer,
                                const ModelConfig& config, std::vector<TensorSpec> plan,
                                uint32_t seed);
  // Allocates every tensor of `plan`, leaving the contents to the caller (GGUF upload).
  static ModelWeights allocate(Device& device, const ModelConfig& config, std::vector<TensorSpec> plan);

  const ModelConfig& config() const { return config_; }
  const std::vector<DeviceTensor>& tensors() const { return tensors_; }
  // Throws std::out_of_range naming the tensor when the plan has no such tensor.
  const DeviceTensor& get(TensorRole role, int32_t layer = -1) const;
  bool has(TensorRole role, int32_t layer = -1) const;
  uint64_t bytes() const;

 private:
  ModelConfig config_;
  std::vector<DeviceTensor> tensors_;
  std::map<std::pair<TensorRole, int32_t>, size_t> index_;
};

// Throws UsageError, before anything is allocated, when `bytes` exceeds the device's largest
// device-local heap; `breakdown` says what the bytes are for.
void require_device_memory(const Device& device, const std::string& what, uint64_t bytes,
                           const std::string& breakdown);

}  // namespace pb
