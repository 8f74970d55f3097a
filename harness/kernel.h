// A compute kernel as the harness sees it: a name, its embedded SPIR-V and the interface
// reflected from it. The registry in kernels/ owns every instance.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "harness/spirv_reflect.h"

namespace pb {

struct Kernel {
  std::string name;
  std::span<const uint32_t> spirv;
  SpirvReflection reflection;

  uint32_t binding_count() const { return static_cast<uint32_t>(reflection.bindings.size()); }
  uint32_t push_size() const { return reflection.push_constant_size; }
};

}  // namespace pb
