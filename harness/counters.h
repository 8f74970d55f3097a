// What the recorder and submitter did, counted: the figures that show an axis changed what it
// claims (submits, barriers by kind, pipeline binds, descriptor writes, timestamps).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

namespace pb {

struct Counters {
  uint64_t command_buffers = 0;
  uint64_t submits = 0;          // vkQueueSubmit2 calls
  uint64_t host_waits = 0;       // waits on the timeline semaphore
  uint64_t dispatches = 0;
  uint64_t pipeline_binds = 0;
  uint64_t descriptor_writes = 0;     // descriptors written (one per binding)
  uint64_t descriptor_set_binds = 0;  // vkCmdBindDescriptorSets / vkCmdPushDescriptorSetKHR
  uint64_t barrier_commands = 0;      // vkCmdPipelineBarrier2 calls
  uint64_t memory_barriers = 0;       // global memory barriers (with access masks)
  uint64_t buffer_barriers = 0;       // buffer-range barriers
  uint64_t execution_barriers = 0;    // barriers ordering execution only (write-after-read)
  uint64_t timestamps = 0;            // timestamp queries written

  Counters& operator+=(const Counters& o);
  bool operator==(const Counters&) const = default;
};

nlohmann::json to_json(const Counters& c);

}  // namespace pb
