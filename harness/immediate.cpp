#include "harness/immediate.h"

#include "harness/device.h"
#include "harness/profiler.h"
#include "harness/recorder.h"
#include "harness/submitter.h"

namespace pb {

void run_immediately(Device& device, PipelineSet& pipelines, std::span<const Op> ops,
                     BarrierPolicy barriers) {
  if (ops.empty()) return;
  Profiler profiler(device, ProfileDensity::Off);
  Recorder recorder(device, pipelines, profiler, RecorderOptions{barriers});
  recorder.prepare(ops);
  Submitter submitter(device);
  const Segment segment{0, static_cast<uint32_t>(ops.size()), HostWait::After};
  submitter.run(recorder, std::span(&segment, 1), false);
  device.check_validation("a one-off dispatch");
}

}  // namespace pb
