// Compute pipelines from embedded SPIR-V with specialization constants, created on demand and
// kept for the life of the device. Creation time is measured per pipeline.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "harness/device_object.h"
#include "harness/kernel.h"
#include "harness/pipeline_statistics.h"

namespace pb {

class Device;
class PipelineCache;

// Specialization constant values by constant_id (0..kMax-1).
struct SpecConstants {
  static constexpr uint32_t kMax = 12;
  std::array<int32_t, kMax> values{};
  uint16_t set_mask = 0;  // bit i: constant_id i is specialized

  SpecConstants& set(uint32_t id, int32_t value);
  bool operator==(const SpecConstants&) const = default;
};

struct PipelineKey {
  const Kernel* kernel = nullptr;
  SpecConstants spec;
  uint32_t required_subgroup_size = 0;  // 0 = the driver's choice
  bool push_descriptors = false;        // set layout created for vkCmdPushDescriptorSetKHR
  bool operator==(const PipelineKey&) const = default;
};

struct PipelineKeyHash {
  size_t operator()(const PipelineKey& key) const;
};

struct ComputePipeline {
  const Kernel* kernel = nullptr;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  bool push_descriptors = false;
  double create_ms = 0;  // host time vkCreateComputePipelines took
  uint32_t threads = 0;  // workgroup size after specialization
  bool subgroup_required = false;  // the required subgroup size was applied
  std::vector<PipelineStatistic> statistics;  // the driver's, where PipelineSet captures them
};

class PipelineSet {
 public:
  PipelineSet(Device& device, PipelineCache* cache);
  ~PipelineSet();
  PipelineSet(const PipelineSet&) = delete;
  PipelineSet& operator=(const PipelineSet&) = delete;

  // The pipeline for `key`, created on first use. Throws UsageError for a specialization id the
  // kernel does not declare or a subgroup size the device cannot require.
  const ComputePipeline& get(const PipelineKey& key);

  // From now on, pipelines are created with the driver's statistics captured into
  // ComputePipeline::statistics. Throws UsageError where the device lacks
  // VK_KHR_pipeline_executable_properties.
  void capture_statistics();

  size_t created() const { return pipelines_.size(); }
  // Pipelines whose workgroup is too large for the required subgroup size (more subgroups than
  // maxComputeWorkgroupSubgroups): created without the requirement.
  size_t subgroup_requirement_skipped() const { return subgroup_skipped_; }
  double total_create_ms() const { return total_create_ms_; }

 private:
  struct Layouts {
    DeviceObject<VkDescriptorSetLayout> set_layout;
    DeviceObject<VkPipelineLayout> layout;
  };
  const Layouts& layouts_for(const Kernel& kernel, bool push_descriptors);
  VkShaderModule module_for(const Kernel& kernel);

  Device& device_;
  PipelineCache* cache_;
  std::unordered_map<const Kernel*, DeviceObject<VkShaderModule>> modules_;
  std::unordered_map<const Kernel*, Layouts> layouts_[2];  // [push_descriptors]
  std::unordered_map<PipelineKey, ComputePipeline, PipelineKeyHash> pipelines_;
  double total_create_ms_ = 0;
  size_t subgroup_skipped_ = 0;
  bool capture_statistics_ = false;
};

}  // namespace pb
