// The host a result was measured on: OS, kernel, CPU, and the environment variables that
// change driver behaviour (RADV_PERFTEST, RADV_DEBUG, MESA_*, the loader's ICD selection...).
// phasebench itself is never configured through them; they are recorded because the driver is.
#pragma once

#include <nlohmann/json.hpp>

namespace pb {

nlohmann::json host_info();

}  // namespace pb
