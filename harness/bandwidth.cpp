#include "harness/bandwidth.h"

#include <algorithm>

#include "harness/buffer.h"
#include "harness/device.h"
#include "harness/errors.h"
#include "harness/pipeline.h"
#include "harness/stats/descriptive.h"
#include "harness/timestamp_math.h"
#include "harness/transfer.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

struct CopyPush {
  uint32_t vec4_count;  // 16-byte elements to copy
};

// Times `body` between two timestamps in one command buffer; returns nanoseconds.
double time_on_gpu(Device& device, Transfer& transfer, VkQueryPool pool,
                   const std::function<void(VkCommandBuffer)>& body) {
  const auto& vk = device.vk();
  vk.vkResetQueryPool(device.handle(), pool, 0, 2);
  transfer.run_one_shot([&](VkCommandBuffer cb) {
    vk.vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 0);
    body(cb);
    vk.vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool, 1);
  });
  uint64_t ticks[2];
  PB_VK_CHECK(vk.vkGetQueryPoolResults(device.handle(), pool, 0, 2, sizeof ticks, ticks,
                                       sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  return timestamp_ns_between(ticks[0], ticks[1], device.info().timestamp_valid_bits,
                              device.info().timestamp_period_ns);
}

}  // namespace

uint64_t bandwidth_buffer_bytes(const Device& device) {
  const auto& info = device.info();
  if (info.type != "discrete") return 64ull << 20;
  uint64_t bytes = 1ull << 30;
  bytes = std::min(bytes, info.device_local_bytes() / 8);
  if (info.max_memory_allocation_size) bytes = std::min(bytes, info.max_memory_allocation_size);
  if (info.max_storage_buffer_range) bytes = std::min(bytes, info.max_storage_buffer_range);
  return bytes & ~uint64_t(0xffff);
}

BandwidthMeasurement measure_copy_bandwidth(Device& device, const Kernel* shader_copy,
                                            int repetitions) {
  const auto& info = device.info();
  if (info.timestamp_valid_bits == 0 || !info.caps.host_query_reset) {
    throw UsageError("the bandwidth probe needs timestamp queries and host query reset, which '" +
                     info.name + "' lacks");
  }
  BandwidthMeasurement m;
  m.buffer_bytes = bandwidth_buffer_bytes(device);
  Buffer src(device, m.buffer_bytes, MemoryUse::Device, "bandwidth source");
  Buffer dst(device, m.buffer_bytes, MemoryUse::Device, "bandwidth destination");
  Transfer transfer(device, 1 << 20);
  transfer.fill(src, 0, m.buffer_bytes, 0x3f800000u);  // never time a copy of zeros

  VkQueryPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  pool_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  pool_info.queryCount = 2;
  VkQueryPool raw_pool = VK_NULL_HANDLE;
  PB_VK_CHECK(device.vk().vkCreateQueryPool(device.handle(), &pool_info, nullptr, &raw_pool));
  DeviceObject<VkQueryPool> pool(device.handle(), raw_pool, device.vk().vkDestroyQueryPool);

  const double bytes_moved = 2.0 * static_cast<double>(m.buffer_bytes);
  const int warmup = 2;
  for (int r = 0; r < warmup + repetitions; ++r) {
    const double ns = time_on_gpu(device, transfer, pool.get(), [&](VkCommandBuffer cb) {
      VkBufferCopy region{0, 0, m.buffer_bytes};
      device.vk().vkCmdCopyBuffer(cb, src.handle(), dst.handle(), 1, &region);
    });
    if (r >= warmup && ns > 0) m.transfer_gbps.push_back(bytes_moved / ns);
  }

  if (shader_copy) {
    PipelineSet pipelines(device, nullptr);
    const ComputePipeline& p = pipelines.get(PipelineKey{shader_copy, {}, 0, false});
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dp_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp_info.maxSets = 1;
    dp_info.poolSizeCount = 1;
    dp_info.pPoolSizes = &size;
    VkDescriptorPool raw_dp = VK_NULL_HANDLE;
    PB_VK_CHECK(device.vk().vkCreateDescriptorPool(device.handle(), &dp_info, nullptr, &raw_dp));
    DeviceObject<VkDescriptorPool> dp(device.handle(), raw_dp, device.vk().vkDestroyDescriptorPool);
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = dp.get();
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &p.set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    PB_VK_CHECK(device.vk().vkAllocateDescriptorSets(device.handle(), &alloc, &set));
    VkDescriptorBufferInfo infos[2] = {{src.handle(), 0, VK_WHOLE_SIZE}, {dst.handle(), 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[2];
    for (uint32_t i = 0; i < 2; ++i) {
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    device.vk().vkUpdateDescriptorSets(device.handle(), 2, writes, 0, nullptr);
    const CopyPush push{static_cast<uint32_t>(m.buffer_bytes / 16)};
    const uint32_t local = shader_copy->reflection.local_size[0];
    const uint32_t groups = std::min<uint32_t>((push.vec4_count + local - 1) / local, 65535u);
    for (int r = 0; r < warmup + repetitions; ++r) {
      const double ns = time_on_gpu(device, transfer, pool.get(), [&](VkCommandBuffer cb) {
        device.vk().vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        device.vk().vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set,
                                            0, nullptr);
        device.vk().vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        device.vk().vkCmdDispatch(cb, groups, 1, 1);
      });
      if (r >= warmup && ns > 0) m.shader_gbps.push_back(bytes_moved / ns);
    }
  }
  if (!m.transfer_gbps.empty()) m.transfer_median_gbps = stats::median(m.transfer_gbps);
  if (!m.shader_gbps.empty()) m.shader_median_gbps = stats::median(m.shader_gbps);
  m.roofline_gbps = std::max(m.transfer_median_gbps, m.shader_median_gbps);
  device.check_validation("the bandwidth probe");
  return m;
}

}  // namespace pb
