#include "harness/device_info.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "harness/vk_check.h"
#include "harness/vk_compat.h"

namespace pb {
namespace {

std::string device_type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

std::string vendor_name(uint32_t id) {
  switch (id) {
    case 0x1002: return "AMD";
    case 0x10DE: return "NVIDIA";
    case 0x8086: return "Intel";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x106B: return "Apple";
    case 0x10005: return "Mesa";
    default: {
      char text[16];
      std::snprintf(text, sizeof text, "0x%04X", id);
      return text;
    }
  }
}

std::string driver_id_name(VkDriverId id) {
  switch (id) {
    case VK_DRIVER_ID_AMD_PROPRIETARY: return "AMD_PROPRIETARY";
    case VK_DRIVER_ID_AMD_OPEN_SOURCE: return "AMD_OPEN_SOURCE";
    case VK_DRIVER_ID_MESA_RADV: return "MESA_RADV";
    case VK_DRIVER_ID_NVIDIA_PROPRIETARY: return "NVIDIA_PROPRIETARY";
    case VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS: return "INTEL_PROPRIETARY_WINDOWS";
    case VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA: return "INTEL_OPEN_SOURCE_MESA";
    case VK_DRIVER_ID_MESA_LLVMPIPE: return "MESA_LLVMPIPE";
    case VK_DRIVER_ID_MESA_TURNIP: return "MESA_TURNIP";
    case VK_DRIVER_ID_MESA_NVK: return "MESA_NVK";
    case VK_DRIVER_ID_MOLTENVK: return "MOLTENVK";
    default: return "DRIVER_ID_" + std::to_string(static_cast<int>(id));
  }
}

// NVIDIA packs its driver version as 10.8.8.6 bits; everyone else follows VK_MAKE_VERSION.
std::string decode_driver_version(uint32_t vendor, uint32_t v) {
  char text[48];
  if (vendor == 0x10DE) {
    std::snprintf(text, sizeof text, "%u.%u.%u.%u", (v >> 22) & 0x3ff, (v >> 14) & 0xff,
                  (v >> 6) & 0xff, v & 0x3f);
  } else {
    std::snprintf(text, sizeof text, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                  VK_API_VERSION_PATCH(v));
  }
  return text;
}

std::string component_name(VkComponentTypeKHR type) {
  switch (type) {
    case VK_COMPONENT_TYPE_FLOAT16_KHR: return "f16";
    case VK_COMPONENT_TYPE_FLOAT32_KHR: return "f32";
    case VK_COMPONENT_TYPE_FLOAT64_KHR: return "f64";
    case VK_COMPONENT_TYPE_SINT8_KHR: return "s8";
    case VK_COMPONENT_TYPE_SINT16_KHR: return "s16";
    case VK_COMPONENT_TYPE_SINT32_KHR: return "s32";
    case VK_COMPONENT_TYPE_SINT64_KHR: return "s64";
    case VK_COMPONENT_TYPE_UINT8_KHR: return "u8";
    case VK_COMPONENT_TYPE_UINT16_KHR: return "u16";
    case VK_COMPONENT_TYPE_UINT32_KHR: return "u32";
    case VK_COMPONENT_TYPE_UINT64_KHR: return "u64";
    default: return "type" + std::to_string(static_cast<int>(type));
  }
}

std::string scope_name(VkScopeKHR scope) {
  switch (scope) {
    case VK_SCOPE_DEVICE_KHR: return "device";
    case VK_SCOPE_WORKGROUP_KHR: return "workgroup";
    case VK_SCOPE_SUBGROUP_KHR: return "subgroup";
    case VK_SCOPE_QUEUE_FAMILY_KHR: return "queue_family";
    default: return "scope" + std::to_string(static_cast<int>(scope));
  }
}

std::set<std::string> device_extensions(VkPhysicalDevice physical) {
  uint32_t count = 0;
  PB_VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> list(count);
  PB_VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, list.data()));
  std::set<std::string> names;
  for (const auto& e : list) names.insert(e.extensionName);
  return names;
}

// The queue family phasebench submits to: a compute family with timestamps, preferring a
// compute-only one (the queue inference engines use), else any compute family.
uint32_t pick_queue_family(VkPhysicalDevice physical, uint32_t* valid_bits) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  int best = -1;
  int best_score = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const auto& f = families[i];
    if (!(f.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    int score = 1;
    if (f.timestampValidBits > 0) score += 4;
    if (!(f.queueFlags & VK_QUEUE_GRAPHICS_BIT)) score += 2;
    if (score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  if (best < 0) {
    *valid_bits = 0;
    return UINT32_MAX;
  }
  *valid_bits = families[best].timestampValidBits;
  return static_cast<uint32_t>(best);
}

bool has_calibration_domains(VkPhysicalDevice physical) {
  if (!vkGetPhysicalDeviceCalibrateableTimeDomainsEXT) return false;
  uint32_t count = 0;
  if (vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkTimeDomainEXT> domains(count);
  if (vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, &count, domains.data()) !=
      VK_SUCCESS) {
    return false;
  }
  const bool device = std::count(domains.begin(), domains.end(), VK_TIME_DOMAIN_DEVICE_EXT) > 0;
  const bool monotonic =
      std::count(domains.begin(), domains.end(), VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT) > 0;
  return device && monotonic;
}

std::vector<CoopMatShape> query_coopmat_shapes(VkInstance instance, VkPhysicalDevice physical) {
  auto fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  if (!fn) return {};
  uint32_t count = 0;
  if (fn(physical, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkCooperativeMatrixPropertiesKHR> props(count);
  for (auto& p : props) {
    p = {};
    p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  }
  if (fn(physical, &count, props.data()) != VK_SUCCESS) return {};
  std::vector<CoopMatShape> shapes;
  for (const auto& p : props) {
    shapes.push_back({p.MSize, p.NSize, p.KSize, component_name(p.AType), component_name(p.BType),
                      component_name(p.CType), component_name(p.ResultType),
                      scope_name(p.scope)});
  }
  return shapes;
}

}  // namespace

uint64_t DeviceInfo::device_local_bytes() const {
  uint64_t best = 0;
  for (const auto& heap : heaps) {
    if (heap.device_local) best = std::max(best, heap.size_bytes);
  }
  return best;
}

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice physical, uint32_t index) {
  DeviceInfo info;
  info.index = index;
  const auto extensions = device_extensions(physical);
  auto has = [&](const char* name) { return extensions.count(name) > 0; };

  VkPhysicalDeviceVulkan13Properties p13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties p12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceVulkan11Properties p11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &p11;
  p11.pNext = &p12;
  VkPhysicalDeviceProperties basic;
  vkGetPhysicalDeviceProperties(physical, &basic);
  const bool is_13 = basic.apiVersion >= VK_API_VERSION_1_3;
  if (is_13) p12.pNext = &p13;
  vkGetPhysicalDeviceProperties2(physical, &props);
  const auto& limits = props.properties.limits;

  info.name = props.properties.deviceName;
  info.type = device_type_name(props.properties.deviceType);
  info.vendor_id = props.properties.vendorID;
  info.device_id = props.properties.deviceID;
  info.vendor = vendor_name(info.vendor_id);
  info.driver_name = p12.driverName;
  info.driver_info = p12.driverInfo;
  info.driver_id = driver_id_name(p12.driverID);
  info.driver_version_raw = props.properties.driverVersion;
  info.driver_version = decode_driver_version(info.vendor_id, info.driver_version_raw);
  info.api_version_raw = props.properties.apiVersion;
  info.api_version = std::to_string(VK_API_VERSION_MAJOR(info.api_version_raw)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(info.api_version_raw)) + "." +
                     std::to_string(VK_API_VERSION_PATCH(info.api_version_raw));
  std::memcpy(info.device_uuid.data(), p11.deviceUUID, VK_UUID_SIZE);
  std::memcpy(info.pipeline_cache_uuid.data(), props.properties.pipelineCacheUUID, VK_UUID_SIZE);

  info.timestamp_period_ns = limits.timestampPeriod;
  info.timestamp_compute_and_graphics = limits.timestampComputeAndGraphics;
  info.queue_family = pick_queue_family(physical, &info.timestamp_valid_bits);

  info.subgroup_size = p11.subgroupSize;
  info.min_subgroup_size = is_13 ? p13.minSubgroupSize : p11.subgroupSize;
  info.max_subgroup_size = is_13 ? p13.maxSubgroupSize : p11.subgroupSize;
  info.max_compute_workgroup_subgroups = is_13 ? p13.maxComputeWorkgroupSubgroups : 0;
  info.required_subgroup_size_compute =
      is_13 && (p13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
  info.caps.subgroup_arithmetic =
      (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
      (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  info.caps.subgroup_shuffle = (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                               (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);

  info.max_compute_shared_memory = limits.maxComputeSharedMemorySize;
  info.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  for (int i = 0; i < 3; ++i) info.max_workgroup_count[i] = limits.maxComputeWorkGroupCount[i];
  info.max_push_constants = limits.maxPushConstantsSize;
  info.max_storage_buffer_range = limits.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment = limits.minStorageBufferOffsetAlignment;
  info.max_memory_allocation_size = p11.maxMemoryAllocationSize;
  info.max_buffer_size = is_13 ? p13.maxBufferSize : 0;

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    info.heaps.push_back({memory.memoryHeaps[i].size,
                          (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0});
  }

  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &f11;
  f11.pNext = &f12;
  if (is_13) f12.pNext = &f13;
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopmat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceDescriptorBufferFeaturesEXT descriptor_buffer{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  void** tail = is_13 ? &f13.pNext : &f12.pNext;
  if (has(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    *tail = &coopmat;
    tail = &coopmat.pNext;
  }
  if (has(VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME)) {
    *tail = &descriptor_buffer;
    tail = &descriptor_buffer.pNext;
  }
  if (has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    *tail = &executable;
    tail = &executable.pNext;
  }
  vkGetPhysicalDeviceFeatures2(physical, &features);

  auto& c = info.caps;
  c.timeline_semaphore = f12.timelineSemaphore;
  c.synchronization2 = is_13 && f13.synchronization2;
  c.storage_buffer_8bit = f12.storageBuffer8BitAccess;
  c.storage_buffer_16bit = f11.storageBuffer16BitAccess;
  c.shader_float16 = f12.shaderFloat16;
  c.shader_int8 = f12.shaderInt8;
  c.shader_int16 = features.features.shaderInt16;
  c.shader_int64 = features.features.shaderInt64;
  c.subgroup_size_control = is_13 && f13.subgroupSizeControl;
  c.compute_full_subgroups = is_13 && f13.computeFullSubgroups;
  c.integer_dot_product = is_13 && f13.shaderIntegerDotProduct;
  c.maintenance4 = is_13 && f13.maintenance4;
  c.host_query_reset = f12.hostQueryReset;
  c.vulkan_memory_model = f12.vulkanMemoryModel && f12.vulkanMemoryModelDeviceScope;
  c.push_descriptor = has(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  c.calibrated_timestamps =
      has(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) && has_calibration_domains(physical);
  // The cooperative-matrix shaders declare the Vulkan memory model (their shared-memory
  // barriers have scopes), so the engine uses the extension only with it.
  c.cooperative_matrix =
      has(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) && coopmat.cooperativeMatrix && c.vulkan_memory_model;
  c.descriptor_buffer =
      has(VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME) && descriptor_buffer.descriptorBuffer;
  c.pipeline_executable_info =
      has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) && executable.pipelineExecutableInfo;

  for (const char* name :
       {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME,
        VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME, VK_EXT_DESCRIPTOR_BUFFER_EXTENSION_NAME,
        VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME,
        VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME,
        VK_KHR_8BIT_STORAGE_EXTENSION_NAME, VK_KHR_16BIT_STORAGE_EXTENSION_NAME,
        VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME,
        "VK_NV_cooperative_matrix2", "VK_KHR_shader_bfloat16", VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME}) {
    if (has(name)) info.extensions.push_back(name);
  }
  if (c.cooperative_matrix) info.coopmat_shapes = query_coopmat_shapes(instance, physical);
  return info;
}

std::string format_uuid(const std::array<uint8_t, VK_UUID_SIZE>& uuid) {
  std::string text;
  char byte[3];
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    std::snprintf(byte, sizeof byte, "%02x", uuid[i]);
    text += byte;
  }
  return text;
}

nlohmann::json to_json(const DeviceInfo& info) {
  nlohmann::json heaps = nlohmann::json::array();
  for (const auto& h : info.heaps) {
    heaps.push_back({{"size_bytes", h.size_bytes}, {"device_local", h.device_local}});
  }
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : info.coopmat_shapes) {
    shapes.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"a", s.a_type}, {"b", s.b_type},
                      {"c", s.c_type}, {"result", s.result_type}, {"scope", s.scope}});
  }
  const auto& c = info.caps;
  nlohmann::json j = {
      {"index", info.index},
      {"name", info.name},
      {"type", info.type},
      {"vendor", info.vendor},
      {"vendor_id", info.vendor_id},
      {"device_id", info.device_id},
      {"driver_name", info.driver_name},
      {"driver_info", info.driver_info},
      {"driver_id", info.driver_id},
      {"driver_version", info.driver_version},
      {"api_version", info.api_version},
      {"device_uuid", format_uuid(info.device_uuid)},
      {"timestamp_period_ns", info.timestamp_period_ns},
      {"timestamp_valid_bits", info.timestamp_valid_bits},
      {"queue_family", info.queue_family},
      {"subgroup_size", info.subgroup_size},
      {"min_subgroup_size", info.min_subgroup_size},
      {"max_subgroup_size", info.max_subgroup_size},
      {"required_subgroup_size_compute", info.required_subgroup_size_compute},
      {"max_compute_shared_memory", info.max_compute_shared_memory},
      {"max_workgroup_invocations", info.max_workgroup_invocations},
      {"max_push_constants", info.max_push_constants},
      {"max_storage_buffer_range", info.max_storage_buffer_range},
      {"min_storage_buffer_offset_alignment", info.min_storage_buffer_offset_alignment},
      {"max_memory_allocation_size", info.max_memory_allocation_size},
      {"heaps", heaps},
      {"features",
       {{"timeline_semaphore", c.timeline_semaphore},
        {"synchronization2", c.synchronization2},
        {"storage_buffer_8bit", c.storage_buffer_8bit},
        {"storage_buffer_16bit", c.storage_buffer_16bit},
        {"shader_float16", c.shader_float16},
        {"shader_int8", c.shader_int8},
        {"shader_int64", c.shader_int64},
        {"subgroup_size_control", c.subgroup_size_control},
        {"subgroup_arithmetic", c.subgroup_arithmetic},
        {"subgroup_shuffle", c.subgroup_shuffle},
        {"push_descriptor", c.push_descriptor},
        {"calibrated_timestamps", c.calibrated_timestamps},
        {"cooperative_matrix", c.cooperative_matrix},
        {"integer_dot_product", c.integer_dot_product},
        {"descriptor_buffer", c.descriptor_buffer},
        {"pipeline_executable_info", c.pipeline_executable_info},
        {"host_query_reset", c.host_query_reset}}},
      {"cooperative_matrix_shapes", shapes},
      {"extensions", info.extensions},
  };
  j["copy_bandwidth_gbps"] =
      info.copy_bandwidth_gbps ? nlohmann::json(*info.copy_bandwidth_gbps) : nlohmann::json();
  return j;
}

}  // namespace pb
