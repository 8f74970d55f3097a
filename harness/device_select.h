// Which device a run uses: `--device` is an index or a case-insensitive name substring; with
// none, a discrete GPU, then an integrated one, then the CPU device (lavapipe).
#pragma once

#include <string>
#include <vector>

#include "harness/device_info.h"

namespace pb {

// Returns the position in `devices` of the chosen device. Throws UsageError naming the
// devices that exist when the spec matches none (or several), or when there is no device.
size_t select_device(const std::vector<DeviceInfo>& devices, const std::string& spec);

}  // namespace pb
