#include "harness/device.h"

#include <string>

#include "harness/device_select.h"
#include "harness/errors.h"
#include "harness/vk_check.h"
#include "harness/vk_compat.h"

namespace pb {
namespace {

void require(bool present, const DeviceInfo& info, const char* what) {
  if (!present) {
    throw UsageError("device '" + info.name + "' lacks " + what +
                     ", which phasebench's kernels need; pick another device with --device");
  }
}

}  // namespace

Device::Device(Instance& instance, VkPhysicalDevice physical, DeviceInfo info)
    : instance_(instance), physical_(physical), info_(std::move(info)) {
  // A validation layer older than VK_KHR_cooperative_matrix (headers 1.3.255) rejects its
  // feature struct at device creation, so under such a layer the extension stays off.
  if (instance.validation_enabled() &&
      instance.validation_layer_version() < VK_MAKE_API_VERSION(0, 1, 3, 255)) {
    info_.caps.cooperative_matrix = false;
    info_.coopmat_shapes.clear();
  }
  const auto& c = info_.caps;
  if (info_.api_version_raw < VK_API_VERSION_1_3) {
    throw UsageError("device '" + info_.name + "' supports Vulkan " + info_.api_version +
                     "; phasebench needs 1.3. Update the driver or pick another --device");
  }
  require(info_.queue_family != UINT32_MAX, info_, "a compute queue");
  require(c.storage_buffer_8bit && c.storage_buffer_16bit, info_, "8/16-bit storage buffers");
  require(c.shader_float16 && c.shader_int8, info_, "float16/int8 shader arithmetic");
  require(c.timeline_semaphore, info_, "timeline semaphores");
  require(c.synchronization2, info_, "synchronization2");
  require(c.subgroup_arithmetic, info_, "subgroup arithmetic in compute shaders");
  require(c.subgroup_shuffle, info_, "subgroup shuffles in compute shaders");
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = info_.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.shaderInt16 = c.shader_int16;
  features.features.shaderInt64 = c.shader_int64;
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  f11.storageBuffer16BitAccess = VK_TRUE;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.storageBuffer8BitAccess = VK_TRUE;
  f12.shaderFloat16 = VK_TRUE;
  f12.shaderInt8 = VK_TRUE;
  f12.timelineSemaphore = VK_TRUE;
  f12.hostQueryReset = c.host_query_reset;
  // Declared by the cooperative-matrix shaders: without it the validation layer (1.3.255 and
  // later, which knows cooperative matrices) reports every one of their shader modules.
  f12.vulkanMemoryModel = c.vulkan_memory_model;
  f12.vulkanMemoryModelDeviceScope = c.vulkan_memory_model;
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  f13.synchronization2 = VK_TRUE;
  f13.subgroupSizeControl = c.subgroup_size_control;
  f13.computeFullSubgroups = c.compute_full_subgroups;
  f13.shaderIntegerDotProduct = c.integer_dot_product;
  f13.maintenance4 = c.maintenance4;
  features.pNext = &f11;
  f11.pNext = &f12;
  f12.pNext = &f13;
  void** tail = &f13.pNext;

  std::vector<const char*> extensions;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopmat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceDescriptorBufferFeaturesEXT descriptor_buffer{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (c.push_descriptor) extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (c.calibrated_timestamps) extensions.push_back(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
  if (c.cooperative_matrix) {
    extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
    coopmat.cooperativeMatrix = VK_TRUE;
    *tail = &coopmat;
    tail = &coopmat.pNext;
  }
  if (c.descriptor_buffer) {
    extensions.push_back(VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME);
    descriptor_buffer.descriptorBuffer = VK_TRUE;
    *tail = &descriptor_buffer;
    tail = &descriptor_buffer.pNext;
  }
  // Enabling it costs nothing: pipelines capture statistics only when created with the flag
  // (PipelineSet::capture_statistics).
  if (c.pipeline_executable_info) {
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    executable.pipelineExecutableInfo = VK_TRUE;
    *tail = &executable;
    tail = &executable.pNext;
  }

  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = &features;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.data();
  PB_VK_CHECK(vkCreateDevice(physical_, &device_info, nullptr, &device_));
  volkLoadDeviceTable(&table_, device_);
  table_.vkGetDeviceQueue(device_, info_.queue_family, 0, &queue_);
}

Device::~Device() {
  if (device_ != VK_NULL_HANDLE) {
    table_.vkDeviceWaitIdle(device_);  // a destructor must not throw; a lost device is moot here
    table_.vkDestroyDevice(device_, nullptr);
  }
}

void Device::check_validation(const std::string& where) {
  instance_.validation_log().throw_if_errors(where);
}

void Device::wait_idle() { PB_VK_CHECK(table_.vkDeviceWaitIdle(device_)); }

std::vector<DeviceInfo> enumerate_devices(Instance& instance) {
  std::vector<DeviceInfo> infos;
  const auto physical = instance.physical_devices();
  for (uint32_t i = 0; i < physical.size(); ++i) {
    infos.push_back(query_device_info(instance.handle(), physical[i], i));
  }
  return infos;
}

Context::Context(const ContextOptions& options)
    : instance_(std::make_unique<Instance>(InstanceOptions{options.validation})) {
  all_devices_ = enumerate_devices(*instance_);
  const size_t chosen = select_device(all_devices_, options.device);
  const auto physical = instance_->physical_devices();
  device_ = std::make_unique<Device>(*instance_, physical[chosen], all_devices_[chosen]);
}

}  // namespace pb
