// The short human summary of a measured run, printed from its result-file entry.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace pb::app {

void print_run_summary(std::ostream& out, const nlohmann::json& run);

}  // namespace pb::app
