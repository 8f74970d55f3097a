// A model's weights on the device: generated there from the synthetic hash (a 20 GB model is
// never built on the host), or uploaded from a GGUF file. Each tensor has a buffer of its own,
// except projections that read the same input (a layer's q, k and v; gate and up; a router and a
// shared expert's gate): they are stored in one buffer, in the order of their outputs, so the
// forward pass can run them as one matrix of their rows stacked, one dispatch where there were
// two or more.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
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
  const Buffer* storage = nullptr;  // owned by the ModelWeights; shared by a stack
  VkDeviceSize offset = 0;          // bytes from the storage's start
  TensorView view() const { return {storage, offset, spec.bytes()}; }
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
  // The tensors `roles` of `layer` as one matrix of their rows stacked in that order, where
  // they are stored so (same format and width, back to back or on kStackPartRows rows); nullopt
  // where they are not, or where one is missing. Its spec names the stack and counts its rows,
  // the zero rows between members included.
  std::optional<DeviceTensor> stacked(std::span<const TensorRole> roles, int32_t layer) const;
  // Writes zeros into the rows between a padded stack's members (kStackPartRows), which its
  // stacked projection reads; the uploads fill only the tensors.
  void zero_pads(Transfer& transfer) const;

 private:
  ModelConfig config_;
  std::vector<std::unique_ptr<Buffer>> storage_;  // behind pointers: tensors point into it
  std::vector<DeviceTensor> tensors_;
  std::map<std::pair<TensorRole, int32_t>, size_t> index_;
  std::vector<TensorView> pads_;  // the rows between padded stacks' members
};

// Throws UsageError, before anything is allocated, when `bytes` exceeds the device's largest
// device-local heap; `breakdown` says what the bytes are for.
void require_device_memory(const Device& device, const std::string& what, uint64_t bytes,
                           const std::string& breakdown);

}  // namespace pb
