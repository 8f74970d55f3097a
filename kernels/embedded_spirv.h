// The SPIR-V compiled at build time (cmake/Shaders.cmake), by shader file name.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace pb {

struct EmbeddedSpirv {
  const char* name;
  std::span<const uint32_t> words;
};

const std::vector<EmbeddedSpirv>& embedded_spirv();

}  // namespace pb
