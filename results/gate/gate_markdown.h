// The gate report as the markdown a terminal shows and a write-up pastes: the files, one row per
// matched run with its headline verdict, the reasons for anything that is not a plain verdict,
// and (unless brief) every metric of every run.
#pragma once

#include <ostream>

#include "results/gate/gate_report.h"

namespace pb::gate {

struct MarkdownOptions {
  bool every_metric = true;  // a table of all compared metrics per run, below the run table
};

void write_markdown(std::ostream& out, const GateReport& report, const MarkdownOptions& options = {});

}  // namespace pb::gate
