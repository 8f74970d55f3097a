// Joins the result files of a sweep's shards: one scenario, one kind of device, no run twice.
#pragma once

#include <string>
#include <vector>

#include "results/result_file.h"

namespace pb {

// Throws UsageError naming the file and field when the inputs are not shards of one sweep.
ResultFile merge_result_files(const std::vector<std::string>& inputs);

}  // namespace pb
