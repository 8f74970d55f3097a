#include "harness/buffer.h"

#include <atomic>

#include "harness/device.h"
#include "harness/errors.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

std::atomic<uint64_t> next_buffer_id{1};

std::string mib(uint64_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes / (1024 * 1024)) + " MiB)";
}

int find_type(const VkPhysicalDeviceMemoryProperties& memory, uint32_t type_bits,
              VkMemoryPropertyFlags required, VkMemoryPropertyFlags avoid = 0) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    const auto flags = memory.memoryTypes[i].propertyFlags;
    if ((type_bits & (1u << i)) && (flags & required) == required && !(flags & avoid)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

uint32_t pick_memory_type(const Device& device, uint32_t type_bits, MemoryUse use,
                          const std::string& what) {
  const auto& memory = device.memory_properties();
  constexpr auto kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  int index = -1;
  switch (use) {
    case MemoryUse::Device:
      index = find_type(memory, type_bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      if (index < 0 && device.info().type != "discrete") {
        index = find_type(memory, type_bits, 0);  // CPU and unified-memory devices
      }
      if (index < 0) {
        throw UsageError("no device-local memory type for " + what + " on '" +
                         device.info().name + "'; phasebench never falls back to host memory "
                         "on a discrete GPU");
      }
      break;
    case MemoryUse::Upload:
      index = find_type(memory, type_bits, kHost, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      if (index < 0) index = find_type(memory, type_bits, kHost);
      break;
    case MemoryUse::Readback:
      index = find_type(memory, type_bits, kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
      if (index < 0) index = find_type(memory, type_bits, kHost);
      break;
  }
  if (index < 0) throw UsageError("no host-visible coherent memory type for " + what);
  return static_cast<uint32_t>(index);
}

Buffer::Buffer(Device& device, VkDeviceSize size, MemoryUse use, std::string name)
    : size_(size), id_(next_buffer_id++), name_(std::move(name)) {
  const auto& vk = device.vk();
  const auto& info = device.info();
  if (size == 0) throw UsageError("buffer '" + name_ + "' has size 0");
  if (info.max_memory_allocation_size && size > info.max_memory_allocation_size) {
    throw UsageError("buffer '" + name_ + "' needs " + mib(size) + " in one allocation; '" +
                     info.name + "' allows at most " + mib(info.max_memory_allocation_size));
  }
  VkBufferCreateInfo create{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  create.size = size;
  create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  PB_VK_CHECK(vk.vkCreateBuffer(device.handle(), &create, nullptr, &buffer));
  buffer_ = DeviceObject<VkBuffer>(device.handle(), buffer, vk.vkDestroyBuffer);

  VkMemoryRequirements requirements;
  vk.vkGetBufferMemoryRequirements(device.handle(), buffer, &requirements);
  const uint32_t type = pick_memory_type(device, requirements.memoryTypeBits, use, name_);
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const VkResult result = vk.vkAllocateMemory(device.handle(), &allocate, nullptr, &memory);
  if (result != VK_SUCCESS) {
    const uint32_t heap = device.memory_properties().memoryTypes[type].heapIndex;
    throw VulkanError(result, "allocating " + mib(requirements.size) + " for buffer '" + name_ +
                                  "' failed with " + vk_result_name(result) + "; heap " +
                                  std::to_string(heap) + " is " +
                                  mib(device.memory_properties().memoryHeaps[heap].size));
  }
  memory_ = DeviceObject<VkDeviceMemory>(device.handle(), memory, vk.vkFreeMemory);
  PB_VK_CHECK(vk.vkBindBufferMemory(device.handle(), buffer, memory, 0));
  if (use != MemoryUse::Device) {
    PB_VK_CHECK(vk.vkMapMemory(device.handle(), memory, 0, VK_WHOLE_SIZE, 0, &mapped_));
  }
}

Buffer::Buffer(Buffer&&) noexcept = default;
Buffer& Buffer::operator=(Buffer&&) noexcept = default;

// The buffer is destroyed before its memory (members destroy in reverse order); freeing the
// memory unmaps it.
Buffer::~Buffer() { buffer_.reset(); }

}  // namespace pb
