#include "harness/sync_objects.h"

#include <string>

#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {

CommandPool::CommandPool(Device& device) : device_(&device) {
  VkCommandPoolCreateInfo info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  info.queueFamilyIndex = device.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  PB_VK_CHECK(device.vk().vkCreateCommandPool(device.handle(), &info, nullptr, &pool));
  pool_ = DeviceObject<VkCommandPool>(device.handle(), pool, device.vk().vkDestroyCommandPool);
}

VkCommandBuffer CommandPool::allocate() {
  VkCommandBufferAllocateInfo info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  info.commandPool = pool_.get();
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  PB_VK_CHECK(device_->vk().vkAllocateCommandBuffers(device_->handle(), &info, &cb));
  return cb;
}

void CommandPool::reset() {
  PB_VK_CHECK(device_->vk().vkResetCommandPool(device_->handle(), pool_.get(), 0));
}

TimelineSemaphore::TimelineSemaphore(Device& device) : device_(&device) {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  info.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  PB_VK_CHECK(device.vk().vkCreateSemaphore(device.handle(), &info, nullptr, &semaphore));
  semaphore_ = DeviceObject<VkSemaphore>(device.handle(), semaphore, device.vk().vkDestroySemaphore);
}

uint64_t TimelineSemaphore::completed() const {
  uint64_t value = 0;
  PB_VK_CHECK(device_->vk().vkGetSemaphoreCounterValue(device_->handle(), semaphore_.get(), &value));
  return value;
}

void TimelineSemaphore::wait(uint64_t value, uint64_t timeout_ns) const {
  const VkSemaphore semaphore = semaphore_.get();
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  const VkResult result = device_->vk().vkWaitSemaphores(device_->handle(), &info, timeout_ns);
  if (result == VK_TIMEOUT) {
    throw VulkanError(result, "the GPU did not reach timeline value " + std::to_string(value) +
                                  " within " + std::to_string(timeout_ns / 1000000000) +
                                  " s (a hung dispatch?)");
  }
  PB_VK_CHECK(result);
}

Fence::Fence(Device& device) : device_(&device) {
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  PB_VK_CHECK(device.vk().vkCreateFence(device.handle(), &info, nullptr, &fence));
  fence_ = DeviceObject<VkFence>(device.handle(), fence, device.vk().vkDestroyFence);
}

void Fence::wait_and_reset(uint64_t timeout_ns) {
  const VkFence fence = fence_.get();
  const VkResult result =
      device_->vk().vkWaitForFences(device_->handle(), 1, &fence, VK_TRUE, timeout_ns);
  if (result == VK_TIMEOUT) {
    throw VulkanError(result, "a one-shot submit did not finish within " +
                                  std::to_string(timeout_ns / 1000000000) + " s");
  }
  PB_VK_CHECK(result);
  PB_VK_CHECK(device_->vk().vkResetFences(device_->handle(), 1, &fence));
}

}  // namespace pb
