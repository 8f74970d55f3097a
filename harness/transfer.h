// Moving bytes between the host and device buffers through bounded staging buffers, so a
// 20 GB upload needs only the staging size of host memory, plus one-shot GPU commands.
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "harness/buffer.h"
#include "harness/sync_objects.h"

namespace pb {

class Device;

class Transfer {
 public:
  explicit Transfer(Device& device, VkDeviceSize staging_bytes = 64ull << 20);

  void upload(const Buffer& dst, VkDeviceSize offset, std::span<const uint8_t> bytes);
  // Uploads `size` bytes produced piecewise by `fill(dst_chunk, offset_in_upload)`, one
  // staging chunk at a time (for memory-mapped files and generated data).
  void upload_stream(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size,
                     const std::function<void(std::span<uint8_t>, VkDeviceSize)>& fill);
  void download(const Buffer& src, VkDeviceSize offset, std::span<uint8_t> out);
  void fill(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size, uint32_t value);

  // Records `body` into a command buffer between full memory barriers, submits it and waits.
  void run_one_shot(const std::function<void(VkCommandBuffer)>& body);

  template <typename T>
  std::vector<T> download_as(const Buffer& src, VkDeviceSize offset, size_t count) {
    std::vector<T> out(count);
    download(src, offset, {reinterpret_cast<uint8_t*>(out.data()), count * sizeof(T)});
    return out;
  }
  template <typename T>
  void upload_from(const Buffer& dst, VkDeviceSize offset, std::span<const T> values) {
    upload(dst, offset, {reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()});
  }

 private:
  Device& device_;
  CommandPool pool_;
  Fence fence_;
  Buffer upload_staging_;
  Buffer readback_staging_;
};

// A full memory barrier between everything before and after it (compute, transfer, host).
void record_full_barrier(Device& device, VkCommandBuffer cb);

}  // namespace pb
