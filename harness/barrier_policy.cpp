#include "harness/barrier_policy.h"

#include <vector>

#include "harness/buffer.h"
#include "harness/device.h"

namespace pb {

std::string_view barrier_policy_name(BarrierPolicy policy) {
  switch (policy) {
    case BarrierPolicy::Global: return "global";
    case BarrierPolicy::Buffer: return "buffer";
    case BarrierPolicy::Ledger: return "ledger";
    case BarrierPolicy::None: return "none";
  }
  return "?";
}

std::optional<BarrierPolicy> parse_barrier_policy(std::string_view name) {
  for (auto p : {BarrierPolicy::Global, BarrierPolicy::Buffer, BarrierPolicy::Ledger,
                 BarrierPolicy::None}) {
    if (barrier_policy_name(p) == name) return p;
  }
  return std::nullopt;
}

void BarrierEmitter::memory_barrier(VkCommandBuffer cb, Counters& counters) {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  barrier.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  barrier.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &barrier;
  device_.vk().vkCmdPipelineBarrier2(cb, &dependency);
  ++counters.barrier_commands;
  ++counters.memory_barriers;
}

void BarrierEmitter::execution_barrier(VkCommandBuffer cb, Counters& counters) {
  VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
  barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
  dependency.memoryBarrierCount = 1;
  dependency.pMemoryBarriers = &barrier;
  device_.vk().vkCmdPipelineBarrier2(cb, &dependency);
  ++counters.barrier_commands;
  ++counters.execution_barriers;
}

void BarrierEmitter::before_dispatch(VkCommandBuffer cb, const Op& op, Counters& counters) {
  if (policy_ != BarrierPolicy::Ledger) return;
  const Hazards hazards = ledger_.check(op.bindings);
  if (hazards.needs_memory_barrier()) {
    memory_barrier(cb, counters);
    ledger_.after_memory_barrier();
  } else if (hazards.write_after_read) {
    execution_barrier(cb, counters);
    ledger_.after_execution_barrier();
  }
  ledger_.record(op.bindings);
}

void BarrierEmitter::after_dispatch(VkCommandBuffer cb, const Op& op, Counters& counters) {
  if (policy_ == BarrierPolicy::Global) {
    memory_barrier(cb, counters);
  } else if (policy_ == BarrierPolicy::Buffer) {
    // Written ranges get a memory dependency; read-only ranges an execution dependency (empty
    // access masks), so a later write to them is ordered after this read. Synchronization
    // validation scopes a buffer barrier's execution dependency to its buffer, so the reads
    // must be named too.
    std::vector<VkBufferMemoryBarrier2> barriers;
    for (const BufferRef& b : op.bindings) {
      VkBufferMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
      barrier.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
      barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
      if (writes(b.access)) {
        barrier.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
        barrier.dstAccessMask =
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
      }
      barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
      barrier.buffer = b.buffer->handle();
      barrier.offset = b.offset;
      barrier.size = b.size;
      barriers.push_back(barrier);
    }
    if (barriers.empty()) return;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.bufferMemoryBarrierCount = static_cast<uint32_t>(barriers.size());
    dependency.pBufferMemoryBarriers = barriers.data();
    device_.vk().vkCmdPipelineBarrier2(cb, &dependency);
    ++counters.barrier_commands;
    counters.buffer_barriers += barriers.size();
  }
}

}  // namespace pb
