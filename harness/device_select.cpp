#include "harness/device_select.h"

#include <algorithm>
#include <cctype>

#include "harness/errors.h"

namespace pb {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string list_devices(const std::vector<DeviceInfo>& devices) {
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i) {
    text += "\n  " + std::to_string(i) + ": " + devices[i].name + " (" + devices[i].type + ", " +
            devices[i].driver_name + ")";
  }
  return text;
}

int type_rank(const std::string& type) {
  if (type == "discrete") return 0;
  if (type == "integrated") return 1;
  if (type == "virtual") return 2;
  if (type == "cpu") return 3;
  return 4;
}

}  // namespace

size_t select_device(const std::vector<DeviceInfo>& devices, const std::string& spec) {
  if (devices.empty()) {
    throw UsageError(
        "no Vulkan device found. For the CPU device lavapipe install `mesa-vulkan-drivers` "
        "(scripts/setup installs it); for a GPU, install its Vulkan driver");
  }
  if (spec.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < devices.size(); ++i) {
      if (type_rank(devices[i].type) < type_rank(devices[best].type)) best = i;
    }
    return best;
  }
  if (std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c); })) {
    const size_t index = std::stoul(spec);
    if (index >= devices.size()) {
      throw UsageError("--device " + spec + ": no device with that index; the devices are:" +
                       list_devices(devices));
    }
    return index;
  }
  std::vector<size_t> matches;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (lower(devices[i].name).find(lower(spec)) != std::string::npos) matches.push_back(i);
  }
  if (matches.empty()) {
    throw UsageError("--device '" + spec + "': no device name contains it; the devices are:" +
                     list_devices(devices));
  }
  if (matches.size() > 1) {
    throw UsageError("--device '" + spec + "' matches " + std::to_string(matches.size()) +
                     " devices; give an index instead. The devices are:" + list_devices(devices));
  }
  return matches.front();
}

}  // namespace pb
