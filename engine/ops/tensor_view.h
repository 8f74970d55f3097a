// A byte range of a device buffer seen as a tensor, and the bindings an op builder makes of it.
#pragma once

#include <volk.h>

#include "harness/buffer.h"
#include "harness/op.h"

namespace pb {

struct TensorView {
  const Buffer* buffer = nullptr;
  VkDeviceSize offset = 0;  // bytes from the start of the buffer
  VkDeviceSize bytes = 0;

  static TensorView whole(const Buffer& b) { return {&b, 0, b.size()}; }
  TensorView slice(VkDeviceSize byte_offset, VkDeviceSize byte_count) const {
    return {buffer, offset + byte_offset, byte_count};
  }
  BufferRef read() const { return {buffer, offset, bytes, Access::Read}; }
  BufferRef write() const { return {buffer, offset, bytes, Access::Write}; }
  BufferRef read_write() const { return {buffer, offset, bytes, Access::ReadWrite}; }
  bool operator==(const TensorView&) const = default;  // the same range of the same buffer
};

inline uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

}  // namespace pb
