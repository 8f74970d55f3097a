#include "harness/profiler.h"

#include <algorithm>

#include "harness/clock_calibration.h"
#include "harness/device.h"
#include "harness/errors.h"
#include "harness/timestamp_math.h"
#include "harness/vk_check.h"

namespace pb {

std::string_view profile_density_name(ProfileDensity density) {
  switch (density) {
    case ProfileDensity::Off: return "off";
    case ProfileDensity::Submit: return "submit";
    case ProfileDensity::Phase: return "phase";
    case ProfileDensity::Dispatch: return "dispatch";
  }
  return "?";
}

std::optional<ProfileDensity> parse_profile_density(std::string_view name) {
  for (auto d : {ProfileDensity::Off, ProfileDensity::Submit, ProfileDensity::Phase,
                 ProfileDensity::Dispatch}) {
    if (profile_density_name(d) == name) return d;
  }
  return std::nullopt;
}

Profiler::Profiler(Device& device, ProfileDensity density) : device_(device), density_(density) {
  if (density_ == ProfileDensity::Off) return;
  const auto& info = device.info();
  if (info.timestamp_valid_bits == 0) {
    throw UsageError("profile '" + std::string(profile_density_name(density)) + "' needs timestamp "
                     "queries, which the compute queue of '" + info.name + "' lacks; use profile off");
  }
  if (!info.caps.host_query_reset) {
    throw UsageError("profiling needs hostQueryReset (Vulkan 1.2), which '" + info.name +
                     "' lacks; use profile off");
  }
}

void Profiler::begin_stage(size_t op_count, size_t segment_count) {
  marks_.clear();
  current_phase_.reset();
  if (density_ == ProfileDensity::Off) return;
  const auto needed = static_cast<uint32_t>(2 * segment_count + op_count + 1);
  if (needed > capacity_) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = needed;
    VkQueryPool pool = VK_NULL_HANDLE;
    PB_VK_CHECK(device_.vk().vkCreateQueryPool(device_.handle(), &info, nullptr, &pool));
    pool_ = DeviceObject<VkQueryPool>(device_.handle(), pool, device_.vk().vkDestroyQueryPool);
    capacity_ = needed;
  }
  device_.vk().vkResetQueryPool(device_.handle(), pool_.get(), 0, capacity_);
}

void Profiler::write(VkCommandBuffer cb, Mark mark, Counters& counters) {
  const auto query = static_cast<uint32_t>(marks_.size());
  // ALL_COMMANDS: the timestamp is taken once everything recorded before it has completed.
  device_.vk().vkCmdWriteTimestamp2(cb, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, pool_.get(), query);
  marks_.push_back(mark);
  ++counters.timestamps;
}

void Profiler::segment_begin(VkCommandBuffer cb, uint32_t segment, uint32_t first_op,
                             Counters& counters) {
  current_phase_.reset();
  if (density_ == ProfileDensity::Off) return;
  write(cb, {MarkKind::SegmentBegin, segment, first_op}, counters);
}

void Profiler::before_dispatch(VkCommandBuffer cb, uint32_t segment, uint32_t op_index,
                               const Op& op, Counters& counters) {
  const bool phase_changed = current_phase_ && *current_phase_ != op.phase;
  current_phase_ = op.phase;
  if (density_ == ProfileDensity::Phase && phase_changed) {
    write(cb, {MarkKind::Boundary, segment, op_index}, counters);
  }
}

void Profiler::after_dispatch(VkCommandBuffer cb, uint32_t segment, uint32_t op_index,
                              Counters& counters) {
  if (density_ == ProfileDensity::Dispatch) {
    write(cb, {MarkKind::DispatchEnd, segment, op_index}, counters);
  }
}

void Profiler::segment_end(VkCommandBuffer cb, uint32_t segment, uint32_t end_op,
                           Counters& counters) {
  if (density_ == ProfileDensity::Submit || density_ == ProfileDensity::Phase) {
    write(cb, {MarkKind::SegmentEnd, segment, end_op}, counters);
  }
}

StageGpuProfile Profiler::collect(std::span<const Op> ops, int64_t stage_start_ns,
                                  std::span<const int64_t> submit_host_ns) {
  StageGpuProfile out;
  if (density_ == ProfileDensity::Off || marks_.empty()) return out;
  const auto& info = device_.info();
  const auto n = static_cast<uint32_t>(marks_.size());
  std::vector<uint64_t> ticks(n);
  PB_VK_CHECK(device_.vk().vkGetQueryPoolResults(device_.handle(), pool_.get(), 0, n,
                                                 n * sizeof(uint64_t), ticks.data(),
                                                 sizeof(uint64_t),
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const uint32_t bits = info.timestamp_valid_bits;
  const double period = info.timestamp_period_ns;

  // Host time of a GPU tick, relative to the stage start. Differences are taken modulo the
  // valid bits, so a counter that wraps during the stage is still placed right.
  const ClockCalibration cal = calibrate_clocks(device_);
  out.clock_calibrated = cal.calibrated;
  auto host_ns = [&](uint64_t t) -> double {
    if (cal.calibrated) {
      return static_cast<double>(cal.host_ns - stage_start_ns) -
             timestamp_ns_between(t, cal.gpu_ticks, bits, period);
    }
    const int64_t anchor = submit_host_ns.empty() ? stage_start_ns : submit_host_ns.front();
    return static_cast<double>(anchor - stage_start_ns) +
           timestamp_ns_between(ticks.front(), t, bits, period);
  };

  out.available = true;
  double last = 0;
  uint32_t span_first = 0;
  auto close_span = [&](uint32_t segment, uint32_t end_op, double t) {
    if (end_op > span_first) {
      const Op& first = ops[span_first];
      out.spans.push_back({last, t, first.phase, static_cast<int32_t>(segment), first.layer,
                           first.token, span_first, end_op - span_first});
      out.phase_ns[static_cast<size_t>(first.phase)] += t - last;
    }
    last = t;
    span_first = end_op;
  };
  for (uint32_t q = 0; q < n; ++q) {
    const Mark& m = marks_[q];
    const double t = host_ns(ticks[q]);
    switch (m.kind) {
      case MarkKind::SegmentBegin:
        out.segments.push_back({t, t, Phase::Embed, static_cast<int32_t>(m.segment), 0, 0, m.op, 0});
        last = t;
        span_first = m.op;
        break;
      case MarkKind::Boundary:
        close_span(m.segment, m.op, t);
        break;
      case MarkKind::DispatchEnd:
        close_span(m.segment, m.op + 1, t);
        out.segments.back().end_ns = t;
        out.segments.back().op_count = m.op + 1 - out.segments.back().first_op;
        break;
      case MarkKind::SegmentEnd:
        if (density_ == ProfileDensity::Phase) close_span(m.segment, m.op, t);
        out.segments.back().end_ns = t;
        out.segments.back().op_count = m.op - out.segments.back().first_op;
        break;
    }
  }

  // GPU busy: the union of the command buffers' intervals (they may overlap when submits are
  // queued back to back).
  std::vector<std::pair<double, double>> intervals;
  for (const auto& s : out.segments) intervals.emplace_back(s.begin_ns, s.end_ns);
  std::sort(intervals.begin(), intervals.end());
  double covered_until = -1e300;
  for (const auto& [b, e] : intervals) {
    const double begin = std::max(b, covered_until);
    if (e > begin) out.busy_ns += e - begin;
    covered_until = std::max(covered_until, e);
  }
  return out;
}

}  // namespace pb
