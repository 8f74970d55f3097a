// Just enough SPIR-V reflection to declare a kernel's interface once: its storage-buffer
// bindings, its push-constant block size and its specialization constants. The C++ side is
// checked against it, so a push-constant struct that drifts from the shader is an error at
// pipeline creation instead of garbage on the GPU.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pb {

struct SpirvBinding {
  uint32_t binding;  // descriptor set 0 binding number
  bool read_only;    // declared readonly (NonWritable) in the shader
};

struct SpirvReflection {
  std::vector<SpirvBinding> bindings;  // sorted by binding number
  uint32_t push_constant_size = 0;     // bytes; 0 = no push-constant block
  std::vector<uint32_t> spec_ids;      // constant_id values, sorted
  uint32_t local_size[3] = {1, 1, 1};  // default workgroup size (before specialization)
  int32_t local_size_spec_id[3] = {-1, -1, -1};  // the spec constant setting each size, or -1
};

// Throws std::runtime_error naming `name` on malformed SPIR-V or a descriptor set other than 0.
SpirvReflection reflect_spirv(std::span<const uint32_t> words, const std::string& name);

}  // namespace pb
