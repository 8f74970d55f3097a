// A move-only owner of one Vulkan object created from a Device, destroyed through the device's
// own function table.
#pragma once

#include <volk.h>

#include <utility>

namespace pb {

template <typename Handle>
class DeviceObject {
 public:
  using DestroyFn = void (*)(VkDevice, Handle, const VkAllocationCallbacks*);

  DeviceObject() = default;
  DeviceObject(VkDevice device, Handle handle, DestroyFn destroy)
      : device_(device), handle_(handle), destroy_(destroy) {}
  ~DeviceObject() { reset(); }
  DeviceObject(DeviceObject&& other) noexcept { *this = std::move(other); }
  DeviceObject& operator=(DeviceObject&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, static_cast<Handle>(VK_NULL_HANDLE));
      destroy_ = other.destroy_;
    }
    return *this;
  }
  DeviceObject(const DeviceObject&) = delete;
  DeviceObject& operator=(const DeviceObject&) = delete;

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

  void reset() {
    if (handle_ != VK_NULL_HANDLE) destroy_(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
  DestroyFn destroy_ = nullptr;
};

}  // namespace pb
