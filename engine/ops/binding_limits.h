// The device limits an op builder must respect when it binds sub-ranges of buffers.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/device_info.h"

namespace pb {

struct BindingLimits {
  uint64_t offset_alignment = 1;  // minStorageBufferOffsetAlignment, bytes
  uint64_t max_range = ~0ull;     // maxStorageBufferRange, bytes

  static BindingLimits of(const DeviceInfo& info) {
    return {info.min_storage_buffer_offset_alignment, info.max_storage_buffer_range};
  }
};

// A binding that covers bytes [begin, end) of `view`, starting at an aligned offset at or
// before `begin`; `first_float` is where element `begin` lies inside the binding, in floats.
struct AlignedWindow {
  TensorView view;
  uint32_t first_float = 0;
};

inline AlignedWindow aligned_window(const TensorView& view, uint64_t begin, uint64_t end,
                                    const BindingLimits& limits) {
  const uint64_t absolute = view.offset + begin;
  const uint64_t start = absolute - absolute % limits.offset_alignment;
  return {TensorView{view.buffer, start, view.offset + end - start},
          static_cast<uint32_t>((absolute - start) / 4)};
}

}  // namespace pb
