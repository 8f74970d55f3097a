// Buffers with their own memory. Compute data lives in device-local memory; on a discrete GPU
// there is never a silent fall-back to host-visible memory.
#pragma once

#include <volk.h>

#include <cstdint>
#include <string>

#include "harness/device_object.h"

namespace pb {

class Device;

enum class MemoryUse {
  Device,    // device-local storage buffer for kernels
  Upload,    // host-visible, coherent: staging for uploads
  Readback,  // host-visible, preferably cached: staging for readback
};

class Buffer {
 public:
  Buffer() = default;
  // Throws UsageError when the size exceeds the device's allocation limit, and VulkanError
  // naming the bytes requested and the heap size when the allocation fails.
  Buffer(Device& device, VkDeviceSize size, MemoryUse use, std::string name);
  Buffer(Buffer&&) noexcept;
  Buffer& operator=(Buffer&&) noexcept;
  ~Buffer();

  VkBuffer handle() const { return buffer_.get(); }
  VkDeviceSize size() const { return size_; }
  uint64_t id() const { return id_; }  // unique per buffer, for the hazard ledger
  const std::string& name() const { return name_; }
  void* mapped() const { return mapped_; }  // non-null for Upload and Readback buffers

 private:
  DeviceObject<VkBuffer> buffer_;
  DeviceObject<VkDeviceMemory> memory_;
  VkDeviceSize size_ = 0;
  uint64_t id_ = 0;
  std::string name_;
  void* mapped_ = nullptr;
};

// The index of a memory type for `use` among `type_bits`; throws when none fits.
uint32_t pick_memory_type(const Device& device, uint32_t type_bits, MemoryUse use,
                          const std::string& what);

}  // namespace pb
