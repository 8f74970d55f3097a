// How many copies of a benchmark's inputs consecutive invocations rotate through. In the op
// stream a layer's weights are read once per token, from memory; a benchmark that reads the
// same buffer again and again would be served by the last-level cache and flatter the kernel.
// The copies together exceed every such cache (H100/H200: 50 MiB of L2; RX 9070: 64 MiB of
// Infinity Cache; MI300X: 256 MiB), twice over. `--cache hot` asks for the other figure: one
// copy read again and again, so inputs that fit stay cache-resident, as the input a producer has
// just written is in the op stream (and as weights would be if something had prefetched them).
#pragma once

#include <cstdint>
#include <string>

#include "harness/device_info.h"

namespace pb::bench {

inline constexpr uint64_t kRotationBytes = 512ull << 20;  // the copies' total on a GPU
inline constexpr uint32_t kMaxRotationCopies = 64;  // above this a copy is a few MiB: cache-sized already
inline constexpr uint32_t kCpuRotationCopies = 2;   // the CPU device: for the tests, not for figures

enum class InputCache {
  Cold,  // rotate through copies that together exceed the last-level cache (the default)
  Hot,   // one copy: from the second invocation on, whatever fits is served by the cache
};

// At least 2 copies (1 when even one would take more than a quarter of device memory), enough
// to total kRotationBytes, at most kMaxRotationCopies, and together at most a quarter of the
// largest device-local heap; 1 for InputCache::Hot.
uint32_t rotation_copies(const DeviceInfo& info, uint64_t bytes_per_copy, InputCache cache);

// One line for the benchmark context.
std::string rotation_policy(const DeviceInfo& info, InputCache cache);

}  // namespace pb::bench
