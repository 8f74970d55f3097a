// The flags phasebench-kernels adds to Google Benchmark's own: taken out of argv before
// benchmark::Initialize, which rejects flags it does not know.
#pragma once

#include <string>

#include "kernels/bench/rotation.h"

namespace pb::bench {

struct BenchFlags {
  std::string device;     // --device D: index or name substring, empty = the default choice
  bool validate = false;  // --validate: Khronos validation with synchronization validation
  InputCache cache = InputCache::Cold;  // --cache cold|hot: rotate the inputs, or read one copy
  bool pipeline_statistics = false;     // --pipeline-statistics: the driver's figures as counters
};

// Removes --device D (or --device=D), --validate, --pipeline-statistics and --cache C (or --cache=C) from argv,
// compacting it and updating argc. Throws UsageError for --device without a value and for a
// --cache value other than cold or hot.
BenchFlags take_bench_flags(int& argc, char** argv);

// The lines --help prints for these flags, before Google Benchmark's.
void print_bench_flags_help();

}  // namespace pb::bench
