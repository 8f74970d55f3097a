// Model presets: real shapes (DESIGN.md, Models) with synthetic weights, and tiny twins of the
// same architectures for the CPU device and the CPU reference.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/model/model_config.h"

namespace pb {

// Throws UsageError listing the presets when `name` is not one.
ModelConfig preset(std::string_view name);
std::vector<std::string> preset_names();

}  // namespace pb
