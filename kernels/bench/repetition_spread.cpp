#include "kernels/bench/repetition_spread.h"

#include <algorithm>
#include <map>

namespace pb::bench {

SpreadRecorder::SpreadRecorder(std::unique_ptr<benchmark::BenchmarkReporter> display)
    : display_(std::move(display)) {}

bool SpreadRecorder::ReportContext(const Context& context) { return display_->ReportContext(context); }

void SpreadRecorder::ReportRuns(const std::vector<Run>& runs) {
  display_->ReportRuns(runs);
  ++reported_;
  // One call holds one benchmark's repetitions, also under random interleaving (Google
  // Benchmark reports a benchmark once its last repetition has run); grouped by name anyway.
  std::map<std::string, RepetitionSpread> by_name;
  for (const Run& run : runs) {
    const std::string name = run.run_name.str();  // the same for a benchmark's repetitions and aggregates
    if (run.run_type == Run::RT_Aggregate) aggregated_.insert(name);
    if (run.run_type != Run::RT_Iteration || run.error_occurred || run.iterations == 0) continue;
    timed_.insert(name);
    const double time = run.GetAdjustedRealTime();
    RepetitionSpread& s = by_name[name];
    if (s.repetitions++ == 0) {
      s.name = name;
      s.fastest = s.slowest = time;
    } else {
      s.fastest = std::min(s.fastest, time);
      s.slowest = std::max(s.slowest, time);
    }
  }
  for (auto& [name, s] : by_name) {
    if (s.repetitions >= 2 && s.fastest > 0) spreads_.push_back(std::move(s));
  }
}

size_t SpreadRecorder::unchecked() const {
  size_t n = 0;
  for (const std::string& name : aggregated_) n += timed_.count(name) == 0 ? 1 : 0;
  return n;
}

void SpreadRecorder::Finalize() { display_->Finalize(); }

}  // namespace pb::bench
