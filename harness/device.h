// The logical device: one compute queue, every optional capability of DeviceCapabilities
// enabled where present, and device-level function pointers loaded into its own table.
#pragma once

#include <volk.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/device_info.h"
#include "harness/instance.h"

namespace pb {

class Device {
 public:
  // Throws UsageError when the device lacks what every kernel needs (Vulkan 1.3, 8/16-bit
  // storage, float16/int8 arithmetic, timeline semaphores, subgroup arithmetic).
  Device(Instance& instance, VkPhysicalDevice physical, DeviceInfo info);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const VolkDeviceTable& vk() const { return table_; }
  VkDevice handle() const { return device_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return info_.queue_family; }
  const DeviceInfo& info() const { return info_; }
  DeviceInfo& mutable_info() { return info_; }
  Instance& instance() { return instance_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }

  // Throws CheckFailure when the validation layer reported errors; `where` names the step.
  void check_validation(const std::string& where);

  // Waits for the queue to drain; throws on device loss.
  void wait_idle();

 private:
  Instance& instance_;
  VkPhysicalDevice physical_;
  DeviceInfo info_;
  VkPhysicalDeviceMemoryProperties memory_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VolkDeviceTable table_{};
};

// An instance with the selected device: what every command that touches the GPU opens.
struct ContextOptions {
  std::string device;       // --device: index or name substring, empty = default choice
  bool validation = false;  // --validate
};

class Context {
 public:
  explicit Context(const ContextOptions& options);
  Instance& instance() { return *instance_; }
  Device& device() { return *device_; }
  const std::vector<DeviceInfo>& all_devices() const { return all_devices_; }

 private:
  std::unique_ptr<Instance> instance_;
  std::vector<DeviceInfo> all_devices_;
  std::unique_ptr<Device> device_;
};

// Every device of the instance, described.
std::vector<DeviceInfo> enumerate_devices(Instance& instance);

}  // namespace pb
