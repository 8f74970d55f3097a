#include "harness/transfer.h"

#include <algorithm>
#include <cstring>

#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {

void record_full_barrier(Device& device, VkCommandBuffer cb) {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
  VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &barrier;
  device.vk().vkCmdPipelineBarrier2(cb, &dependency);
}

Transfer::Transfer(Device& device, VkDeviceSize staging_bytes)
    : device_(device),
      pool_(device),
      fence_(device),
      upload_staging_(device, staging_bytes, MemoryUse::Upload, "upload staging"),
      readback_staging_(device, staging_bytes, MemoryUse::Readback, "readback staging") {}

void Transfer::run_one_shot(const std::function<void(VkCommandBuffer)>& body) {
  const auto& vk = device_.vk();
  pool_.reset();
  VkCommandBuffer cb = pool_.allocate();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  PB_VK_CHECK(vk.vkBeginCommandBuffer(cb, &begin));
  record_full_barrier(device_, cb);
  body(cb);
  // Also makes transfer writes available to the host for readback.
  VkMemoryBarrier2 to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  to_host.srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
  to_host.srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT;
  to_host.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_HOST_BIT;
  to_host.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT |
                          VK_ACCESS_2_HOST_READ_BIT;
  VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &to_host;
  vk.vkCmdPipelineBarrier2(cb, &dependency);
  PB_VK_CHECK(vk.vkEndCommandBuffer(cb));

  VkCommandBufferSubmitInfo cb_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
  cb_info.commandBuffer = cb;
  VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  submit.commandBufferInfoCount = 1;
  submit.pCommandBufferInfos = &cb_info;
  PB_VK_CHECK(vk.vkQueueSubmit2(device_.queue(), 1, &submit, fence_.handle()));
  fence_.wait_and_reset(kGpuWaitTimeoutNs);
}

void Transfer::upload_stream(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size,
                             const std::function<void(std::span<uint8_t>, VkDeviceSize)>& fill) {
  auto* staging = static_cast<uint8_t*>(upload_staging_.mapped());
  for (VkDeviceSize done = 0; done < size;) {
    const VkDeviceSize chunk = std::min(size - done, upload_staging_.size());
    fill({staging, static_cast<size_t>(chunk)}, done);
    run_one_shot([&](VkCommandBuffer cb) {
      VkBufferCopy region{0, offset + done, chunk};
      device_.vk().vkCmdCopyBuffer(cb, upload_staging_.handle(), dst.handle(), 1, &region);
    });
    done += chunk;
  }
}

void Transfer::upload(const Buffer& dst, VkDeviceSize offset, std::span<const uint8_t> bytes) {
  upload_stream(dst, offset, bytes.size(), [&](std::span<uint8_t> chunk, VkDeviceSize at) {
    std::memcpy(chunk.data(), bytes.data() + at, chunk.size());
  });
}

void Transfer::download(const Buffer& src, VkDeviceSize offset, std::span<uint8_t> out) {
  const auto* staging = static_cast<const uint8_t*>(readback_staging_.mapped());
  for (VkDeviceSize done = 0; done < out.size();) {
    const VkDeviceSize chunk = std::min<VkDeviceSize>(out.size() - done, readback_staging_.size());
    run_one_shot([&](VkCommandBuffer cb) {
      VkBufferCopy region{offset + done, 0, chunk};
      device_.vk().vkCmdCopyBuffer(cb, src.handle(), readback_staging_.handle(), 1, &region);
    });
    std::memcpy(out.data() + done, staging, chunk);
    done += chunk;
  }
}

void Transfer::fill(const Buffer& dst, VkDeviceSize offset, VkDeviceSize size, uint32_t value) {
  run_one_shot([&](VkCommandBuffer cb) {
    device_.vk().vkCmdFillBuffer(cb, dst.handle(), offset, size, value);
  });
}

}  // namespace pb
