// The flags phasebench-kernels adds to Google Benchmark's own: taken out of argv before
// benchmark::Initialize, which rejects flags it does not know.
#pragma once

#include <string>

namespace pb::bench {

struct BenchFlags {
  std::string device;     // --device D: index or name substring, empty = the default choice
  bool validate = false;  // --validate: Khronos validation with synchronization validation
};

// Removes --device D (or --device=D) and --validate from argv, compacting it and updating
// argc. Throws UsageError for --device without a value.
BenchFlags take_bench_flags(int& argc, char** argv);

// The lines --help prints for these flags, before Google Benchmark's.
void print_bench_flags_help();

}  // namespace pb::bench
