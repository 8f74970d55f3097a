#include "harness/vk_check.h"

#include <string>

namespace pb {

const char* vk_result_name(VkResult result) {
  switch (result) {
#define PB_CASE(name) \
  case name:          \
    return #name;
    PB_CASE(VK_SUCCESS)
    PB_CASE(VK_NOT_READY)
    PB_CASE(VK_TIMEOUT)
    PB_CASE(VK_EVENT_SET)
    PB_CASE(VK_EVENT_RESET)
    PB_CASE(VK_INCOMPLETE)
    PB_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    PB_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    PB_CASE(VK_ERROR_INITIALIZATION_FAILED)
    PB_CASE(VK_ERROR_DEVICE_LOST)
    PB_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    PB_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    PB_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    PB_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    PB_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    PB_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    PB_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    PB_CASE(VK_ERROR_FRAGMENTED_POOL)
    PB_CASE(VK_ERROR_UNKNOWN)
    PB_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    PB_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    PB_CASE(VK_ERROR_FRAGMENTATION)
    PB_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    PB_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    PB_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef PB_CASE
    default:
      return "VkResult(unknown)";
  }
}

void throw_vk_error(VkResult result, const char* call, const char* file, int line) {
  std::string message = std::string(call) + " returned " + vk_result_name(result) + " (" +
                        std::to_string(static_cast<int>(result)) + ") at " + file + ":" +
                        std::to_string(line);
  if (result == VK_ERROR_DEVICE_LOST) {
    message += "; the device was lost (a hung or faulting dispatch, or a driver reset)";
  }
  throw VulkanError(result, message);
}

}  // namespace pb
