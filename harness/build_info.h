// What build this binary is: recorded in the `tool` block of every result file.
#pragma once

#include <string>

namespace pb {

struct BuildInfo {
  std::string version;         // project version, "0.1.0"
  std::string git_commit;      // full hash, "-dirty" appended for uncommitted changes
  std::string build_type;      // CMAKE_BUILD_TYPE
  std::string compiler;        // compiler id and version
  std::string glslang_version; // the glslang that compiled the embedded shaders
  bool has_coopmat_shaders;    // cooperative-matrix kernels were compiled in
  bool has_intdot_shaders;     // integer-dot kernels were compiled in
};

const BuildInfo& build_info();

}  // namespace pb
