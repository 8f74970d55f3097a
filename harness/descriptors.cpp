#include "harness/descriptors.h"

#include <cstring>

#include "harness/buffer.h"
#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

constexpr uint32_t kSetsPerPool = 1024;
constexpr uint32_t kMaxBindingsPerSet = 16;

}  // namespace

std::string_view descriptor_mode_name(DescriptorMode mode) {
  switch (mode) {
    case DescriptorMode::PoolReset: return "pool-reset";
    case DescriptorMode::Persistent: return "persistent";
    case DescriptorMode::Push: return "push";
  }
  return "?";
}

std::optional<DescriptorMode> parse_descriptor_mode(std::string_view name) {
  for (auto m : {DescriptorMode::PoolReset, DescriptorMode::Persistent, DescriptorMode::Push}) {
    if (descriptor_mode_name(m) == name) return m;
  }
  return std::nullopt;
}

DescriptorBinder::DescriptorBinder(Device& device, DescriptorMode mode)
    : device_(device), mode_(mode) {}

VkDescriptorPool DescriptorBinder::new_pool(std::vector<DeviceObject<VkDescriptorPool>>& pools) {
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kMaxBindingsPerSet};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.maxSets = kSetsPerPool;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  PB_VK_CHECK(device_.vk().vkCreateDescriptorPool(device_.handle(), &info, nullptr, &pool));
  pools.emplace_back(device_.handle(), pool, device_.vk().vkDestroyDescriptorPool);
  return pool;
}

VkDescriptorSet DescriptorBinder::allocate(std::vector<DeviceObject<VkDescriptorPool>>& pools,
                                           size_t& current, VkDescriptorSetLayout layout) {
  for (;;) {
    if (current >= pools.size()) new_pool(pools);
    VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = pools[current].get();
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    const VkResult result = device_.vk().vkAllocateDescriptorSets(device_.handle(), &info, &set);
    if (result == VK_SUCCESS) return set;
    if (result != VK_ERROR_OUT_OF_POOL_MEMORY && result != VK_ERROR_FRAGMENTED_POOL) {
      PB_VK_CHECK(result);
    }
    ++current;  // this pool is full: move to the next (created on demand)
  }
}

void DescriptorBinder::write_set(VkDescriptorSet set, const Op& op) {
  VkDescriptorBufferInfo infos[kMaxBindingsPerSet];
  VkWriteDescriptorSet writes[kMaxBindingsPerSet];
  const uint32_t n = static_cast<uint32_t>(op.bindings.size());
  for (uint32_t i = 0; i < n; ++i) {
    infos[i] = {op.bindings[i].buffer->handle(), op.bindings[i].offset, op.bindings[i].size};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  device_.vk().vkUpdateDescriptorSets(device_.handle(), n, writes, 0, nullptr);
}

std::string DescriptorBinder::persistent_key(const ComputePipeline& pipeline, const Op& op) {
  std::string key(reinterpret_cast<const char*>(&pipeline.set_layout), sizeof(VkDescriptorSetLayout));
  for (const BufferRef& b : op.bindings) {
    const VkBuffer handle = b.buffer->handle();
    key.append(reinterpret_cast<const char*>(&handle), sizeof handle);
    key.append(reinterpret_cast<const char*>(&b.offset), sizeof b.offset);
    key.append(reinterpret_cast<const char*>(&b.size), sizeof b.size);
  }
  return key;
}

void DescriptorBinder::begin_slot(uint32_t slot) {
  if (mode_ != DescriptorMode::PoolReset) return;
  if (slot >= slots_.size()) slots_.resize(slot + 1);
  for (auto& pool : slots_[slot].pools) {
    PB_VK_CHECK(device_.vk().vkResetDescriptorPool(device_.handle(), pool.get(), 0));
  }
  slots_[slot].current = 0;
}

void DescriptorBinder::prepare(const ComputePipeline& pipeline, const Op& op) {
  if (mode_ != DescriptorMode::Persistent) return;
  std::string key = persistent_key(pipeline, op);
  auto it = persistent_sets_.find(key);
  if (it == persistent_sets_.end()) {
    VkDescriptorSet set =
        allocate(persistent_pools_.pools, persistent_pools_.current, pipeline.set_layout);
    write_set(set, op);
    it = persistent_sets_.emplace(std::move(key), set).first;
  }
  op_sets_[&op] = it->second;
}

void DescriptorBinder::bind(VkCommandBuffer cb, const ComputePipeline& pipeline, const Op& op,
                            uint32_t slot, Counters& counters) {
  const auto& vk = device_.vk();
  const uint32_t n = static_cast<uint32_t>(op.bindings.size());
  switch (mode_) {
    case DescriptorMode::Push: {
      VkDescriptorBufferInfo infos[kMaxBindingsPerSet];
      VkWriteDescriptorSet writes[kMaxBindingsPerSet];
      for (uint32_t i = 0; i < n; ++i) {
        infos[i] = {op.bindings[i].buffer->handle(), op.bindings[i].offset, op.bindings[i].size};
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
      }
      vk.vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, n, writes);
      counters.descriptor_writes += n;
      break;
    }
    case DescriptorMode::PoolReset: {
      if (slot >= slots_.size()) slots_.resize(slot + 1);
      Slot& s = slots_[slot];
      VkDescriptorSet set = allocate(s.pools, s.current, pipeline.set_layout);
      write_set(set, op);
      counters.descriptor_writes += n;
      vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1, &set, 0,
                                 nullptr);
      break;
    }
    case DescriptorMode::Persistent: {
      auto it = op_sets_.find(&op);
      if (it == op_sets_.end()) {  // not prepared ahead: build it now and count the writes
        const size_t sets_before = persistent_sets_.size();
        prepare(pipeline, op);
        if (persistent_sets_.size() > sets_before) counters.descriptor_writes += n;
        it = op_sets_.find(&op);
      }
      vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout, 0, 1,
                                 &it->second, 0, nullptr);
      break;
    }
  }
  ++counters.descriptor_set_binds;
}

}  // namespace pb
