#include "harness/pipeline.h"

#include <algorithm>
#include <vector>

#include "harness/device.h"
#include "harness/errors.h"
#include "harness/host_clock.h"
#include "harness/pipeline_cache.h"
#include "harness/vk_check.h"

namespace pb {

SpecConstants& SpecConstants::set(uint32_t id, int32_t value) {
  if (id >= kMax) throw UsageError("specialization constant id " + std::to_string(id) + " >= " + std::to_string(kMax));
  values[id] = value;
  set_mask |= static_cast<uint16_t>(1u << id);
  return *this;
}

size_t PipelineKeyHash::operator()(const PipelineKey& key) const {
  size_t h = std::hash<const void*>()(key.kernel);
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (uint32_t i = 0; i < SpecConstants::kMax; ++i) {
    if (key.spec.set_mask & (1u << i)) mix((uint64_t(i) << 32) | uint32_t(key.spec.values[i]));
  }
  mix(key.required_subgroup_size);
  mix(key.push_descriptors);
  return h;
}

PipelineSet::PipelineSet(Device& device, PipelineCache* cache) : device_(device), cache_(cache) {}

void PipelineSet::capture_statistics() {
  if (!device_.info().caps.pipeline_executable_info) {
    throw UsageError("pipeline statistics need VK_KHR_pipeline_executable_properties, which '" +
                     device_.info().name + "' lacks; run without --pipeline-statistics");
  }
  capture_statistics_ = true;
}

PipelineSet::~PipelineSet() {
  for (auto& [key, p] : pipelines_) device_.vk().vkDestroyPipeline(device_.handle(), p.pipeline, nullptr);
}

VkShaderModule PipelineSet::module_for(const Kernel& kernel) {
  auto it = modules_.find(&kernel);
  if (it != modules_.end()) return it->second.get();
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = kernel.spirv.size_bytes();
  info.pCode = kernel.spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  PB_VK_CHECK(device_.vk().vkCreateShaderModule(device_.handle(), &info, nullptr, &module));
  return modules_
      .emplace(&kernel, DeviceObject<VkShaderModule>(device_.handle(), module,
                                                     device_.vk().vkDestroyShaderModule))
      .first->second.get();
}

const PipelineSet::Layouts& PipelineSet::layouts_for(const Kernel& kernel, bool push_descriptors) {
  auto& table = layouts_[push_descriptors ? 1 : 0];
  auto it = table.find(&kernel);
  if (it != table.end()) return it->second;
  const auto& vk = device_.vk();

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (const auto& b : kernel.reflection.bindings) {
    bindings.push_back({b.binding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                        nullptr});
  }
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  if (push_descriptors) {
    if (!device_.info().caps.push_descriptor) {
      throw UsageError("descriptors 'push' needs VK_KHR_push_descriptor, which '" +
                       device_.info().name + "' lacks");
    }
    set_info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  }
  set_info.bindingCount = static_cast<uint32_t>(bindings.size());
  set_info.pBindings = bindings.data();
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  PB_VK_CHECK(vk.vkCreateDescriptorSetLayout(device_.handle(), &set_info, nullptr, &set_layout));
  Layouts layouts;
  layouts.set_layout = DeviceObject<VkDescriptorSetLayout>(device_.handle(), set_layout,
                                                           vk.vkDestroyDescriptorSetLayout);

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.push_size()};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = kernel.push_size() > 0 ? 1 : 0;
  layout_info.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  PB_VK_CHECK(vk.vkCreatePipelineLayout(device_.handle(), &layout_info, nullptr, &layout));
  layouts.layout = DeviceObject<VkPipelineLayout>(device_.handle(), layout, vk.vkDestroyPipelineLayout);
  return table.emplace(&kernel, std::move(layouts)).first->second;
}

const ComputePipeline& PipelineSet::get(const PipelineKey& key) {
  auto it = pipelines_.find(key);
  if (it != pipelines_.end()) return it->second;
  const Kernel& kernel = *key.kernel;
  const auto& info = device_.info();

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<int32_t> data;
  for (uint32_t id = 0; id < SpecConstants::kMax; ++id) {
    if (!(key.spec.set_mask & (1u << id))) continue;
    const auto& ids = kernel.reflection.spec_ids;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      throw UsageError("kernel '" + kernel.name + "' has no specialization constant id " +
                       std::to_string(id));
    }
    entries.push_back({id, static_cast<uint32_t>(data.size() * 4), 4});
    data.push_back(key.spec.values[id]);
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(),
                            data.size() * 4, data.data()};

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  VkPipelineShaderStageCreateInfo stage{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  stage.module = module_for(kernel);
  stage.pName = "main";
  stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  uint32_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    const int32_t id = kernel.reflection.local_size_spec_id[i];
    const bool specialized = id >= 0 && (key.spec.set_mask & (1u << id));
    threads *= specialized ? static_cast<uint32_t>(key.spec.values[id]) : kernel.reflection.local_size[i];
  }
  bool subgroup_required = false;
  if (key.required_subgroup_size != 0) {
    const uint32_t size = key.required_subgroup_size;
    if (!info.caps.subgroup_size_control || !info.required_subgroup_size_compute ||
        size < info.min_subgroup_size || size > info.max_subgroup_size) {
      throw UsageError("subgroup size " + std::to_string(size) + " cannot be required on '" +
                       info.name + "' (it allows " + std::to_string(info.min_subgroup_size) +
                       ".." + std::to_string(info.max_subgroup_size) +
                       (info.caps.subgroup_size_control ? "" : ", without subgroup size control") +
                       "); use subgroup 'default'");
    }
    if (info.max_compute_workgroup_subgroups != 0 &&
        threads > size * info.max_compute_workgroup_subgroups) {
      ++subgroup_skipped_;  // a workgroup this large cannot be made of subgroups this small
    } else {
      subgroup.requiredSubgroupSize = size;
      stage.pNext = &subgroup;
      subgroup_required = true;
    }
  }

  const Layouts& layouts = layouts_for(kernel, key.push_descriptors);
  VkComputePipelineCreateInfo create{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  create.stage = stage;
  create.layout = layouts.layout.get();
  if (capture_statistics_) create.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const int64_t start = host_now_ns();
  PB_VK_CHECK(device_.vk().vkCreateComputePipelines(
      device_.handle(), cache_ ? cache_->handle() : VK_NULL_HANDLE, 1, &create, nullptr, &pipeline));
  const double ms = static_cast<double>(host_now_ns() - start) / 1e6;
  total_create_ms_ += ms;
  ComputePipeline result{&kernel, pipeline, layouts.layout.get(), layouts.set_layout.get(),
                         key.push_descriptors, ms, threads, subgroup_required};
  ComputePipeline& stored = pipelines_.emplace(key, result).first->second;  // destroyed with the set
  if (capture_statistics_) stored.statistics = query_pipeline_statistics(device_, pipeline);
  return stored;
}

}  // namespace pb
