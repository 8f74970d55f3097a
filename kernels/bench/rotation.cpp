#include "kernels/bench/rotation.h"

#include <algorithm>

#include "harness/errors.h"

namespace pb::bench {

uint32_t rotation_copies(const DeviceInfo& info, uint64_t bytes_per_copy, InputCache cache) {
  const uint64_t budget = info.device_local_bytes() / 4;
  if (bytes_per_copy > budget) {
    throw UsageError("one copy of the benchmark's inputs takes " + std::to_string(bytes_per_copy >> 20) +
                     " MiB, more than a quarter of the " + std::to_string(info.device_local_bytes() >> 20) +
                     " MiB of device memory of '" + info.name + "'");
  }
  const uint64_t fit = std::max<uint64_t>(1, budget / std::max<uint64_t>(bytes_per_copy, 1));
  uint64_t copies = kCpuRotationCopies;
  if (cache == InputCache::Hot) {
    copies = 1;
  } else if (info.type != "cpu") {
    copies = (kRotationBytes + bytes_per_copy - 1) / std::max<uint64_t>(bytes_per_copy, 1);
    copies = std::clamp<uint64_t>(copies, 2, kMaxRotationCopies);
  }
  return static_cast<uint32_t>(std::min(copies, fit));
}

std::string rotation_policy(const DeviceInfo& info, InputCache cache) {
  if (cache == InputCache::Hot) {
    return "--cache hot: one copy of the inputs, read by every invocation (cache-resident where "
           "they fit in the last-level cache)";
  }
  if (info.type == "cpu") {
    return "inputs rotate through " + std::to_string(kCpuRotationCopies) +
           " copies (CPU device: small shapes that its caches hold anyway)";
  }
  return "inputs rotate through copies totalling at least " + std::to_string(kRotationBytes >> 20) +
         " MiB (2 to " + std::to_string(kMaxRotationCopies) + " copies, at most a quarter of device memory)";
}

}  // namespace pb::bench
