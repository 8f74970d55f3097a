// The Vulkan instance, loaded through volk, with the Khronos validation layer (and its
// synchronization validation) when asked for.
#pragma once

#include <volk.h>

#include <memory>
#include <vector>

#include "harness/validation_log.h"

namespace pb {

struct InstanceOptions {
  bool validation = false;  // Khronos validation layer with synchronization validation
  const char* loader_library = "libvulkan.so.1";  // the Vulkan loader to dlopen
};

class Instance {
 public:
  // Throws UsageError when there is no Vulkan loader, no 1.3 instance, or (with validation)
  // no validation layer, each with what to install.
  explicit Instance(const InstanceOptions& options);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  uint32_t validation_layer_version() const { return validation_layer_version_; }  // 0 = none
  ValidationLog& validation_log() { return *log_; }
  std::vector<VkPhysicalDevice> physical_devices() const;

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  void* loader_ = nullptr;
  uint32_t validation_layer_version_ = 0;  // dlopen handle; stays open for the process (volk keeps pointers)
  std::unique_ptr<ValidationLog> log_;  // stable address for the layer's callback
};

}  // namespace pb
