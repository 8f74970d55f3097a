// Everything phasebench knows about a physical device: what `phasebench devices` lists and
// what the `device` block of a result file records.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pb {

// Optional capabilities; each is enabled on the logical device when present.
struct DeviceCapabilities {
  bool timeline_semaphore = false;
  bool synchronization2 = false;
  bool storage_buffer_8bit = false;
  bool storage_buffer_16bit = false;
  bool shader_float16 = false;
  bool shader_int8 = false;
  bool shader_int16 = false;
  bool shader_int64 = false;
  bool subgroup_size_control = false;   // VK_EXT_subgroup_size_control / 1.3 core
  bool compute_full_subgroups = false;
  bool push_descriptor = false;         // VK_KHR_push_descriptor
  bool calibrated_timestamps = false;   // VK_EXT/KHR_calibrated_timestamps with a device+monotonic pair
  bool cooperative_matrix = false;      // VK_KHR_cooperative_matrix
  bool integer_dot_product = false;     // VK_KHR_shader_integer_dot_product / 1.3 core
  bool descriptor_buffer = false;       // VK_EXT_descriptor_buffer
  bool host_query_reset = false;
  bool vulkan_memory_model = false;     // and its device scope: what the cooperative-matrix
                                        // shaders declare (GL_KHR_memory_scope_semantics)
  bool maintenance4 = false;
  bool subgroup_arithmetic = false;     // subgroupAdd/Max in compute shaders
  bool subgroup_shuffle = false;
  bool pipeline_executable_info = false;  // VK_KHR_pipeline_executable_properties: register counts etc.
};

// One cooperative-matrix shape the device supports (VkCooperativeMatrixPropertiesKHR).
struct CoopMatShape {
  uint32_t m, n, k;
  std::string a_type, b_type, c_type, result_type;  // "f16", "f32", "s8", ...
  std::string scope;                                // "subgroup", "workgroup", ...
};

struct MemoryHeap {
  uint64_t size_bytes;
  bool device_local;
};

struct DeviceInfo {
  uint32_t index = 0;          // position in vkEnumeratePhysicalDevices order
  std::string name;
  std::string type;            // "discrete", "integrated", "virtual", "cpu", "other"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string vendor;          // "AMD", "NVIDIA", "Intel", "Mesa", ...
  std::string driver_name;     // VkPhysicalDeviceDriverProperties::driverName
  std::string driver_info;     // e.g. "Mesa 25.0.7"
  std::string driver_id;       // "MESA_RADV", "NVIDIA_PROPRIETARY", "MESA_LLVMPIPE", ...
  uint32_t driver_version_raw = 0;
  std::string driver_version;  // decoded per vendor convention
  std::string api_version;     // "1.3.230"
  uint32_t api_version_raw = 0;
  std::array<uint8_t, VK_UUID_SIZE> device_uuid{};
  std::array<uint8_t, VK_UUID_SIZE> pipeline_cache_uuid{};

  double timestamp_period_ns = 0;       // nanoseconds per timestamp tick
  uint32_t timestamp_valid_bits = 0;    // of the queue family phasebench uses; 0 = unsupported
  bool timestamp_compute_and_graphics = false;
  uint32_t queue_family = 0;            // the compute queue family phasebench uses

  uint32_t subgroup_size = 0;           // default
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  bool required_subgroup_size_compute = false;  // requiredSubgroupSize allowed in compute
  uint32_t max_compute_workgroup_subgroups = 0;  // subgroups one workgroup may hold

  uint32_t max_compute_shared_memory = 0;        // bytes
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_push_constants = 0;               // bytes
  uint64_t max_storage_buffer_range = 0;         // bytes
  uint64_t min_storage_buffer_offset_alignment = 1;  // bytes
  uint64_t max_memory_allocation_size = 0;       // bytes (maintenance3)
  uint64_t max_buffer_size = 0;                  // bytes (maintenance4), 0 when unknown
  std::vector<MemoryHeap> heaps;

  DeviceCapabilities caps;
  std::vector<CoopMatShape> coopmat_shapes;
  std::vector<std::string> extensions;  // the relevant ones that are present

  std::optional<double> copy_bandwidth_gbps;  // measured by the bandwidth probe, GB/s

  uint64_t device_local_bytes() const;  // the largest device-local heap
};

DeviceInfo query_device_info(VkInstance instance, VkPhysicalDevice physical, uint32_t index);
std::string format_uuid(const std::array<uint8_t, VK_UUID_SIZE>& uuid);
nlohmann::json to_json(const DeviceInfo& info);

}  // namespace pb
