// The summary block of one metric in a result file: median, mean, min, max, quartiles and the
// distribution-free 95% CI of the median (null below 6 samples). One definition, used when a
// run is recorded and when rounds of runs are merged.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace pb {

nlohmann::json metric_summary(const std::vector<double>& values);

// UTC now, ISO 8601 ("2026-11-21T23:59:00Z"), for the time stamps of files and records.
std::string utc_timestamp();

}  // namespace pb
