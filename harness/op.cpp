#include "harness/op.h"

#include <string>

#include "harness/buffer.h"
#include "harness/device_info.h"
#include "harness/errors.h"

namespace pb {

void validate_op(const Op& op, const DeviceInfo& device) {
  if (!op.kernel) throw UsageError(std::string("op '") + op.label + "' has no kernel");
  const Kernel& k = *op.kernel;
  const std::string where = "op '" + std::string(op.label) + "' (kernel " + k.name + ")";
  if (op.bindings.size() != k.binding_count()) {
    throw UsageError(where + " binds " + std::to_string(op.bindings.size()) +
                     " buffers; the shader declares " + std::to_string(k.binding_count()));
  }
  if (op.push.size != k.push_size()) {
    throw UsageError(where + ": the C++ push-constant struct is " + std::to_string(op.push.size) +
                     " bytes; the shader's block is " + std::to_string(k.push_size()));
  }
  for (size_t i = 0; i < op.bindings.size(); ++i) {
    const BufferRef& b = op.bindings[i];
    const std::string binding = where + " binding " + std::to_string(i);
    if (!b.buffer) throw UsageError(binding + " has no buffer");
    if (b.size == 0 || b.offset + b.size > b.buffer->size()) {
      throw UsageError(binding + " range [" + std::to_string(b.offset) + ", +" +
                       std::to_string(b.size) + ") lies outside buffer '" + b.buffer->name() +
                       "' of " + std::to_string(b.buffer->size()) + " bytes");
    }
    if (b.offset % device.min_storage_buffer_offset_alignment != 0) {
      throw UsageError(binding + " offset " + std::to_string(b.offset) + " is not a multiple of " +
                       std::to_string(device.min_storage_buffer_offset_alignment));
    }
    if (b.size > device.max_storage_buffer_range) {
      throw UsageError(binding + " range of " + std::to_string(b.size) +
                       " bytes exceeds the device's maxStorageBufferRange " +
                       std::to_string(device.max_storage_buffer_range));
    }
    if (writes(b.access) && k.reflection.bindings[i].read_only) {
      throw UsageError(binding + " is declared written, but the shader declares it readonly");
    }
  }
  for (uint32_t g : op.groups) {
    if (g == 0) throw UsageError(where + " dispatches zero workgroups");
  }
  for (int i = 0; i < 3; ++i) {
    if (op.groups[i] > device.max_workgroup_count[i]) {
      throw UsageError(where + " dispatches " + std::to_string(op.groups[i]) +
                       " workgroups in dimension " + std::to_string(i) + "; the device allows " +
                       std::to_string(device.max_workgroup_count[i]));
    }
  }
}

}  // namespace pb
