// Every kernel compiled into this binary, by name, with its reflected interface. A kernel that
// needs a compiler feature the build lacked (cooperative matrix, integer dot) is absent.
#pragma once

#include <string_view>
#include <vector>

#include "harness/kernel.h"

namespace pb {

// Throws std::runtime_error naming the kernel when it was not compiled in.
const Kernel& kernel(std::string_view name);
// Null when the kernel was not compiled in.
const Kernel* find_kernel(std::string_view name);
std::vector<const Kernel*> all_kernels();

}  // namespace pb
