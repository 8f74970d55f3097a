// Command pools, the timeline semaphore that orders submits, and a fence for one-shot work.
#pragma once

#include <volk.h>

#include <cstdint>

#include "harness/device_object.h"

namespace pb {

class Device;

class CommandPool {
 public:
  CommandPool() = default;
  explicit CommandPool(Device& device);
  VkCommandBuffer allocate();  // a primary command buffer owned by the pool
  void reset();                // recycles every command buffer of the pool at once
  VkCommandPool handle() const { return pool_.get(); }

 private:
  Device* device_ = nullptr;
  DeviceObject<VkCommandPool> pool_;
};

// Submits signal increasing values; the host waits for a value.
class TimelineSemaphore {
 public:
  TimelineSemaphore() = default;
  explicit TimelineSemaphore(Device& device);
  VkSemaphore handle() const { return semaphore_.get(); }
  uint64_t next_value() { return ++last_issued_; }
  uint64_t last_issued() const { return last_issued_; }
  uint64_t completed() const;  // the value the GPU has reached
  // Waits until the GPU reaches `value`; throws VulkanError naming the value on timeout.
  void wait(uint64_t value, uint64_t timeout_ns) const;

 private:
  Device* device_ = nullptr;
  DeviceObject<VkSemaphore> semaphore_;
  uint64_t last_issued_ = 0;
};

class Fence {
 public:
  Fence() = default;
  explicit Fence(Device& device);
  VkFence handle() const { return fence_.get(); }
  void wait_and_reset(uint64_t timeout_ns);

 private:
  Device* device_ = nullptr;
  DeviceObject<VkFence> fence_;
};

// How long any host wait may take before the run is declared hung.
inline constexpr uint64_t kGpuWaitTimeoutNs = 120ull * 1000 * 1000 * 1000;

}  // namespace pb
