// The device's copy bandwidth, measured with timestamp queries: the roofline every kernel's
// achieved bandwidth is divided by. Bytes counted are bytes read plus bytes written.
#pragma once

#include <cstdint>
#include <vector>

namespace pb {

class Device;
struct Kernel;

struct BandwidthMeasurement {
  uint64_t buffer_bytes = 0;                 // size of the copied buffer
  std::vector<double> transfer_gbps;         // vkCmdCopyBuffer, one per repetition
  std::vector<double> shader_gbps;           // a compute-shader copy, one per repetition
  double transfer_median_gbps = 0;
  double shader_median_gbps = 0;
  double roofline_gbps = 0;                  // the larger median: the harder bar to reach
};

// How far a run's copy bandwidth at the end may be from its start (0.05: 5%) before the run warns
// that the device changed while it ran; phasebench-kernels also takes it as the default limit
// of a benchmark's repetition spread (--max-spread).
inline constexpr double kSteadyBandwidthChange = 0.05;

// `shader_copy` is the copy kernel (kernels/copy_vec4.comp), or null to measure only
// vkCmdCopyBuffer. Throws UsageError when the device has no timestamps.
BandwidthMeasurement measure_copy_bandwidth(Device& device, const Kernel* shader_copy,
                                            int repetitions = 15);

// The buffer size the probe uses: large enough to defeat a GPU's last-level cache, small
// enough for the CPU device.
uint64_t bandwidth_buffer_bytes(const Device& device);

}  // namespace pb
