// The gate report as JSON, schema phasebench.gate/1 (results/schema/gate.schema.json). The
// charts and the history read this shape; change it only with a new schema version.
#pragma once

#include <nlohmann/json.hpp>

#include "results/gate/gate_report.h"

namespace pb::gate {

inline constexpr const char* kGateSchema = "phasebench.gate/1";

// Improvements and their interval are fractions, positive = better whatever the metric's
// direction; values that do not exist (an interval below 3 samples per side) are null.
nlohmann::json to_json(const GateReport& report);

}  // namespace pb::gate
