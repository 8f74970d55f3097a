// The one checked-call macro for Vulkan: any result other than VK_SUCCESS throws a VulkanError
// that names the call, the VkResult, the file and the line.
#pragma once

#include <volk.h>

#include <stdexcept>
#include <string>

namespace pb {

class VulkanError : public std::runtime_error {
 public:
  VulkanError(VkResult result, const std::string& message)
      : std::runtime_error(message), result_(result) {}
  VkResult result() const { return result_; }

 private:
  VkResult result_;
};

const char* vk_result_name(VkResult result);

[[noreturn]] void throw_vk_error(VkResult result, const char* call, const char* file, int line);

inline void check_vk(VkResult result, const char* call, const char* file, int line) {
  if (result != VK_SUCCESS) throw_vk_error(result, call, file, line);
}

}  // namespace pb

#define PB_VK_CHECK(call) ::pb::check_vk((call), #call, __FILE__, __LINE__)
