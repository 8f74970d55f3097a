// Places GPU timestamps on the host's steady clock. With VK_EXT_calibrated_timestamps the
// device and CLOCK_MONOTONIC are sampled together, which gives the exact gaps between submits;
// without it the caller falls back to aligning the GPU's first timestamp with its submit.
#pragma once

#include <cstdint>

namespace pb {

class Device;

struct ClockCalibration {
  bool calibrated = false;      // a device/host pair was sampled
  uint64_t gpu_ticks = 0;       // device timestamp (masked to its valid bits)
  int64_t host_ns = 0;          // CLOCK_MONOTONIC at the same instant
  uint64_t max_deviation_ns = 0;
};

// Samples the device and host clocks together; `calibrated` is false when the device cannot.
ClockCalibration calibrate_clocks(Device& device);

}  // namespace pb
