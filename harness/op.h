// An op: one compute dispatch as the engine emits it. It declares the kernel and its
// specialization, the buffer ranges it reads and writes, push constants, workgroup counts and
// where it belongs (phase, layer, token). The harness alone decides command buffers, submits
// and barriers.
#pragma once

#include <volk.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "harness/phase.h"
#include "harness/pipeline.h"

namespace pb {

class Buffer;
struct DeviceInfo;

enum class Access : uint8_t { Read, Write, ReadWrite };

inline bool reads(Access a) { return a != Access::Write; }
inline bool writes(Access a) { return a != Access::Read; }

// Binding i of the kernel's descriptor set: a range of one buffer.
struct BufferRef {
  const Buffer* buffer = nullptr;
  VkDeviceSize offset = 0;  // bytes
  VkDeviceSize size = 0;    // bytes
  Access access = Access::Read;
};

struct PushConstants {
  std::array<uint8_t, 128> bytes{};
  uint32_t size = 0;

  template <typename T>
  static PushConstants of(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 128);
    PushConstants p;
    std::memcpy(p.bytes.data(), &value, sizeof(T));
    p.size = sizeof(T);
    return p;
  }
};

enum class Stage : uint8_t { Prefill, Decode };

struct Op {
  const Kernel* kernel = nullptr;
  SpecConstants spec;
  std::vector<BufferRef> bindings;        // bindings[i] is binding i
  PushConstants push;
  std::array<uint32_t, 3> groups{1, 1, 1};  // workgroup counts
  Phase phase = Phase::Embed;
  int32_t layer = 0;  // layer the op belongs to; the embedding counts as layer 0, the tail as the last
  int32_t token = 0;  // position of the first token the op computes
  const char* label = "";  // what it computes, for traces ("attn_q", "lm_head", ...)
};

// Throws UsageError when an op does not match its kernel: binding count, push-constant size,
// a write to a readonly binding, a range outside its buffer or misaligned, zero workgroups.
void validate_op(const Op& op, const DeviceInfo& device);

}  // namespace pb
