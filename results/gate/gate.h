// The A/B gate over two result files (DESIGN.md, "A/B gate and optimization cycles"): pairs
// their runs by config and decides each pair (compare_runs.h). `gate`, `ab` and `cycle record`
// all go through here, so they can never disagree.
#pragma once

#include <filesystem>
#include <string>

#include "results/gate/gate_options.h"
#include "results/gate/gate_report.h"
#include "results/result_file.h"

namespace pb::gate {

// Throws UsageError for bad options, files of different schema versions, malformed runs, a
// --metric that neither file measured, or files without a run in common (listing each side's
// configs). Files from different devices or drivers are gated with a warning in the report.
GateReport gate_results(const ResultFile& base, const std::string& base_label, const ResultFile& cand,
                        const std::string& cand_label, const GateOptions& options);

// Loads both files (ResultFile::load: malformed JSON and other schema versions are UsageErrors
// naming the file) and gates them; the labels are the paths as given.
GateReport gate_files(const std::filesystem::path& base, const std::filesystem::path& cand, const GateOptions& options);

}  // namespace pb::gate
