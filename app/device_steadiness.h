// Whether the device stayed as it was while a run or a sweep measured it: its copy bandwidth,
// measured at the start for the roofline, is measured again at the end and set beside it in the
// result file (device.copy_bandwidth_end_gbps). Another process on the GPU for the whole run, or
// clocks or a temperature that changed, move it; the run then says so instead of leaving its
// figures to be compared as if nothing had.
#pragma once

#include <filesystem>
#include <ostream>

#include "app/device_options.h"

namespace pb::app {

// Measures the copy bandwidth again, adds it to the result file at `result` (rewritten
// atomically) and prints both figures to `out`, with a warning when they are more than
// kSteadyBandwidthChange apart on a GPU (on the CPU device, a note: its figure follows the host's
// load). Nothing when the start was not measured (--no-bandwidth) or the
// file does not exist.
void state_device_steadiness(GpuSession& gpu, const std::filesystem::path& result, std::ostream& out);

}  // namespace pb::app
