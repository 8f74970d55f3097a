// How far apart the repetitions of each benchmark were. A median alone hides a run whose
// repetitions disagree (another process on the GPU, clocks that changed, an order effect), so
// phasebench-kernels sees every repetition as Google Benchmark reports it and states the spread
// after the run.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pb::bench {

struct RepetitionSpread {
  std::string name;
  int repetitions = 0;
  double fastest = 0;  // time per iteration, the benchmark's own unit
  double slowest = 0;
  // The slowest repetition over the fastest, less one: 0.05 is 5% apart.
  double spread() const { return slowest / fastest - 1; }
};

// A display reporter that forwards everything to the one it wraps (the console, JSON or CSV
// reporter --benchmark_format chose) and keeps, per benchmark with two or more timed
// repetitions, their spread. Failed repetitions are not counted; benchmarks the display gets as
// aggregates only (--benchmark_display_aggregates_only, --benchmark_report_aggregates_only) have
// no repetition times to compare and are counted as unchecked.
class SpreadRecorder : public benchmark::BenchmarkReporter {
 public:
  explicit SpreadRecorder(std::unique_ptr<benchmark::BenchmarkReporter> display);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  const std::vector<RepetitionSpread>& spreads() const { return spreads_; }
  // Benchmarks reported (none when --benchmark_list_tests only listed them).
  size_t reported() const { return reported_; }
  // Benchmarks with aggregates but no repetition times.
  size_t unchecked() const;

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::vector<RepetitionSpread> spreads_;
  size_t reported_ = 0;
  std::set<std::string> timed_;       // benchmarks with at least one repetition's time
  std::set<std::string> aggregated_;  // benchmarks with aggregates (two or more repetitions)
};

}  // namespace pb::bench
