// The flags phasebench-kernels adds to Google Benchmark's own: taken out of argv before
// benchmark::Initialize, which rejects flags it does not know.
#pragma once

#include <string>

#include "harness/bandwidth.h"
#include "kernels/bench/rotation.h"

namespace pb::bench {

struct BenchFlags {
  std::string device;     // --device D: index or name substring, empty = the default choice
  bool validate = false;  // --validate: Khronos validation with synchronization validation
  InputCache cache = InputCache::Cold;  // --cache cold|hot: rotate the inputs, or read one copy
  bool pipeline_statistics = false;     // --pipeline-statistics: the driver's figures as counters
  // --max-spread P (percent): repetitions, and the bandwidth at start and end, further apart warn.
  double max_spread = kSteadyBandwidthChange;
  // Read from Google Benchmark's own --benchmark_out=F and --benchmark_out_format=F, which stay
  // in argv: the file the run's steadiness is added to, where it is JSON.
  std::string benchmark_out;
  bool benchmark_out_json = true;
};

// Removes --device D (or --device=D), --validate, --pipeline-statistics, --cache C (or --cache=C)
// and --max-spread P (or --max-spread=P) from argv, compacting it and updating argc. Throws
// UsageError for --device without a value, a --cache value other than cold or hot, and a
// --max-spread that is not a percentage of 0 or more.
BenchFlags take_bench_flags(int& argc, char** argv);

// The lines --help prints for these flags, before Google Benchmark's.
void print_bench_flags_help();

}  // namespace pb::bench
