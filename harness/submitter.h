// The one place that turns segments of ops into command buffers and submits, and where the
// host waits. It times host record, submit and wait per segment.
//
// Without double buffering each segment is recorded, submitted and (if its shape says so)
// waited for before the next is recorded. With double buffering segment N+1 is recorded while
// the GPU runs N, and at most two command buffers are in flight. A segment that waits one
// behind (per-token-ahead) is waited for after the next segment is submitted, so the GPU has
// the next token queued while the host waits; at most two are in flight there too.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "harness/counters.h"
#include "harness/submit_shape.h"
#include "harness/sync_objects.h"

namespace pb {

class Device;
class Recorder;

struct HostSpan {
  enum class Kind : uint8_t { Record, Submit, Wait };
  Kind kind;
  int32_t segment;
  int64_t begin_ns;  // host steady clock, relative to the stage start
  int64_t end_ns;
};

struct StageTiming {
  int64_t start_ns = 0;   // absolute host time the stage began
  int64_t wall_ns = 0;    // from the first record to the end of the last wait
  int64_t record_ns = 0;  // host time spent recording command buffers
  int64_t submit_ns = 0;  // in vkQueueSubmit2
  int64_t wait_ns = 0;    // waiting on the GPU
  std::vector<HostSpan> host_spans;
  std::vector<int64_t> submit_host_ns;  // absolute host time each segment's submit began
  Counters counters;
};

class Submitter {
 public:
  explicit Submitter(Device& device);

  // Runs every segment of the recorder's prepared op stream; returns when the GPU is done.
  StageTiming run(Recorder& recorder, std::span<const Segment> segments, bool double_buffer);

 private:
  struct Slot {
    CommandPool pool;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    uint64_t last_value = 0;  // timeline value of the slot's last submit
  };
  Slot& slot(uint32_t index);
  // A wait the submit shape asks for always calls into the driver and counts; a wait for a
  // ring slot (`required` false) only when the slot is still busy.
  void wait(uint64_t value, int32_t segment, StageTiming& timing, bool required);

  Device& device_;
  TimelineSemaphore timeline_;
  std::vector<Slot> slots_;
};

// Slots in the ring when submits are queued back to back without double buffering: the host
// blocks only when this many command buffers are still in flight.
inline constexpr uint32_t kMaxQueuedSegments = 64;

}  // namespace pb
