// GPU timestamps at a chosen density (DESIGN.md, the `profile` axis). Timestamps are only ever
// added inside command buffers: the profiler never changes command buffers, submits or
// barriers, so every density measures the same submission shape.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "harness/counters.h"
#include "harness/device_object.h"
#include "harness/op.h"

namespace pb {

class Device;

enum class ProfileDensity {
  Off,       // no timestamps
  Submit,    // at the start and end of each command buffer
  Phase,     // also wherever the phase changes
  Dispatch,  // after every dispatch
};

std::string_view profile_density_name(ProfileDensity density);
std::optional<ProfileDensity> parse_profile_density(std::string_view name);

// A GPU interval, in nanoseconds from the stage's host start time.
struct GpuSpan {
  double begin_ns = 0;
  double end_ns = 0;
  Phase phase = Phase::Embed;
  int32_t segment = 0;
  int32_t layer = 0;
  int32_t token = 0;
  uint32_t first_op = 0;  // the ops the span covers: [first_op, first_op + op_count)
  uint32_t op_count = 0;
};

struct StageGpuProfile {
  bool available = false;           // timestamps were written (density != off)
  bool clock_calibrated = false;    // placed with calibrated timestamps, else aligned to submits
  std::vector<GpuSpan> segments;    // one per command buffer (phase/op fields unused)
  std::vector<GpuSpan> spans;       // per phase run (phase density) or per dispatch
  std::array<double, kPhaseCount> phase_ns{};  // total GPU time per phase
  double busy_ns = 0;               // union of the command buffers' intervals
};

class Profiler {
 public:
  Profiler(Device& device, ProfileDensity density);
  ProfileDensity density() const { return density_; }

  // Sizes the query pool for a stage and resets it from the host.
  void begin_stage(size_t op_count, size_t segment_count);
  void segment_begin(VkCommandBuffer cb, uint32_t segment, uint32_t first_op, Counters& counters);
  void before_dispatch(VkCommandBuffer cb, uint32_t segment, uint32_t op_index, const Op& op,
                       Counters& counters);
  void after_dispatch(VkCommandBuffer cb, uint32_t segment, uint32_t op_index, Counters& counters);
  void segment_end(VkCommandBuffer cb, uint32_t segment, uint32_t end_op, Counters& counters);

  // Reads the stage's timestamps once every submit has completed. `stage_start_ns` is the
  // host time the stage began; `submit_host_ns[s]` when segment s was submitted.
  StageGpuProfile collect(std::span<const Op> ops, int64_t stage_start_ns,
                          std::span<const int64_t> submit_host_ns);

 private:
  enum class MarkKind : uint8_t { SegmentBegin, Boundary, DispatchEnd, SegmentEnd };
  struct Mark {
    MarkKind kind;
    uint32_t segment;
    uint32_t op;  // next op (begin/boundary), finished op (dispatch end), end op (segment end)
  };
  void write(VkCommandBuffer cb, Mark mark, Counters& counters);

  Device& device_;
  ProfileDensity density_;
  DeviceObject<VkQueryPool> pool_;
  uint32_t capacity_ = 0;
  std::vector<Mark> marks_;             // in query order
  std::optional<Phase> current_phase_;  // phase of the ops since the last mark, per segment
};

}  // namespace pb
