// How an op's buffers reach its kernel (DESIGN.md, the `descriptors` axis):
//   pool-reset  sets allocated per op from a pool per command-buffer slot, reset when the slot
//               is reused (its command buffer has finished);
//   persistent  one set per distinct binding tuple, written once at load and bound thereafter;
//   push        vkCmdPushDescriptorSetKHR, nothing allocated.
#pragma once

#include <volk.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harness/counters.h"
#include "harness/device_object.h"
#include "harness/op.h"
#include "harness/pipeline.h"

namespace pb {

class Device;

enum class DescriptorMode { PoolReset, Persistent, Push };

std::string_view descriptor_mode_name(DescriptorMode mode);
std::optional<DescriptorMode> parse_descriptor_mode(std::string_view name);

class DescriptorBinder {
 public:
  DescriptorBinder(Device& device, DescriptorMode mode);
  DescriptorMode mode() const { return mode_; }
  bool uses_push_descriptors() const { return mode_ == DescriptorMode::Push; }

  // Pool-reset: recycles the slot's pools; the caller guarantees the slot's last command
  // buffer has completed.
  void begin_slot(uint32_t slot);
  // Persistent: creates and writes the op's set ahead of time, outside any measurement. The op
  // must stay at the same address until it is last bound.
  void prepare(const ComputePipeline& pipeline, const Op& op);
  // Binds the op's buffers for `pipeline` into `cb`, counting writes and binds.
  void bind(VkCommandBuffer cb, const ComputePipeline& pipeline, const Op& op, uint32_t slot,
            Counters& counters);

 private:
  VkDescriptorPool new_pool(std::vector<DeviceObject<VkDescriptorPool>>& pools);
  VkDescriptorSet allocate(std::vector<DeviceObject<VkDescriptorPool>>& pools, size_t& current,
                           VkDescriptorSetLayout layout);
  void write_set(VkDescriptorSet set, const Op& op);
  static std::string persistent_key(const ComputePipeline& pipeline, const Op& op);

  struct Slot {
    std::vector<DeviceObject<VkDescriptorPool>> pools;
    size_t current = 0;  // index of the pool being allocated from
  };

  Device& device_;
  DescriptorMode mode_;
  std::vector<Slot> slots_;
  Slot persistent_pools_;
  std::unordered_map<std::string, VkDescriptorSet> persistent_sets_;  // by binding tuple
  // Each prepared op's set, looked up by the op's address, so binding costs one pointer hash
  // (what an engine that stores the set with the op pays).
  std::unordered_map<const Op*, VkDescriptorSet> op_sets_;
};

}  // namespace pb
