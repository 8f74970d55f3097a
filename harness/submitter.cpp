#include "harness/submitter.h"

#include <algorithm>

#include "harness/device.h"
#include "harness/host_clock.h"
#include "harness/recorder.h"
#include "harness/vk_check.h"

namespace pb {

Submitter::Submitter(Device& device) : device_(device), timeline_(device) {}

Submitter::Slot& Submitter::slot(uint32_t index) {
  while (slots_.size() <= index) {
    Slot s;
    s.pool = CommandPool(device_);
    slots_.push_back(std::move(s));
  }
  return slots_[index];
}

void Submitter::wait(uint64_t value, int32_t segment, StageTiming& timing, bool required) {
  if (value == 0 || (!required && timeline_.completed() >= value)) return;
  const int64_t begin = host_now_ns();
  timeline_.wait(value, kGpuWaitTimeoutNs);
  const int64_t end = host_now_ns();
  timing.wait_ns += end - begin;
  ++timing.counters.host_waits;
  timing.host_spans.push_back({HostSpan::Kind::Wait, segment, begin - timing.start_ns,
                               end - timing.start_ns});
}

StageTiming Submitter::run(Recorder& recorder, std::span<const Segment> segments,
                           bool double_buffer) {
  StageTiming timing;
  auto any_waits = [&](HostWait w) {
    return std::any_of(segments.begin(), segments.end(), [w](const Segment& s) { return s.wait == w; });
  };
  const bool any_nowait = any_waits(HostWait::None);
  const bool any_behind = any_waits(HostWait::AfterNextSubmit);
  // Two slots where the next segment is recorded (double buffering) or queued (waits one
  // behind) while the GPU runs the current one.
  const uint32_t ring = double_buffer || any_behind ? 2u
                        : any_nowait              ? std::min<uint32_t>(kMaxQueuedSegments,
                                                                       static_cast<uint32_t>(segments.size()))
                                                  : 1u;
  recorder.profiler().begin_stage(recorder.ops().size(), segments.size());
  timing.start_ns = host_now_ns();

  // The previous segment's wait, deferred: with double buffering until this segment is
  // recorded, for HostWait::AfterNextSubmit until it is submitted.
  struct DeferredWait {
    uint64_t value = 0;  // 0: none
    int32_t segment = -1;
    bool after_submit = false;
  } deferred;
  auto wait_deferred = [&](bool after_submit) {
    if (deferred.value == 0 || deferred.after_submit != after_submit) return;
    wait(deferred.value, deferred.segment, timing, true);
    deferred = {};
  };
  for (uint32_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    const uint32_t slot_index = i % ring;
    Slot& s = slot(slot_index);
    wait(s.last_value, static_cast<int32_t>(i), timing, false);  // the slot's command buffer is done

    const int64_t record_begin = host_now_ns();
    PB_VK_CHECK(device_.vk().vkResetCommandPool(device_.handle(), s.pool.handle(), 0));
    if (s.cb == VK_NULL_HANDLE) s.cb = s.pool.allocate();
    recorder.descriptors().begin_slot(slot_index);
    recorder.record(s.cb, i, seg.first, seg.count, slot_index, timing.counters);
    const int64_t record_end = host_now_ns();
    timing.record_ns += record_end - record_begin;
    timing.host_spans.push_back({HostSpan::Kind::Record, static_cast<int32_t>(i),
                                 record_begin - timing.start_ns, record_end - timing.start_ns});

    wait_deferred(false);  // recorded N+1 while the GPU ran N; now wait for N as its shape asks

    const uint64_t value = timeline_.next_value();
    VkCommandBufferSubmitInfo cb_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cb_info.commandBuffer = s.cb;
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = timeline_.handle();
    signal.value = value;
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.commandBufferInfoCount = 1;
    submit.pCommandBufferInfos = &cb_info;
    submit.signalSemaphoreInfoCount = 1;
    submit.pSignalSemaphoreInfos = &signal;
    const int64_t submit_begin = host_now_ns();
    PB_VK_CHECK(device_.vk().vkQueueSubmit2(device_.queue(), 1, &submit, VK_NULL_HANDLE));
    const int64_t submit_end = host_now_ns();
    s.last_value = value;
    ++timing.counters.submits;
    timing.submit_ns += submit_end - submit_begin;
    timing.submit_host_ns.push_back(submit_begin);
    timing.host_spans.push_back({HostSpan::Kind::Submit, static_cast<int32_t>(i),
                                 submit_begin - timing.start_ns, submit_end - timing.start_ns});

    wait_deferred(true);  // the queue now holds segment i; wait for i - 1 as its shape asks
    if (seg.wait != HostWait::None) {
      const bool last = i + 1 == segments.size();
      const bool after_submit = seg.wait == HostWait::AfterNextSubmit;
      if (!last && (after_submit || double_buffer)) {
        deferred = {value, static_cast<int32_t>(i), after_submit};
      } else {
        wait(value, static_cast<int32_t>(i), timing, true);
      }
    }
  }
  wait(timeline_.last_issued(), static_cast<int32_t>(segments.size()) - 1, timing, false);
  timing.wall_ns = host_now_ns() - timing.start_ns;
  return timing;
}

}  // namespace pb
