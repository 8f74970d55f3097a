#include "kernels/bench/bench_flags.h"

#include <cstdio>
#include <string_view>

#include "harness/errors.h"

namespace pb::bench {
namespace {

InputCache parse_cache(std::string_view value) {
  if (value == "cold") return InputCache::Cold;
  if (value == "hot") return InputCache::Hot;
  throw UsageError("--cache: expected cold (rotate the inputs through copies larger than the cache, the "
                   "default) or hot (read one copy, cache-resident where it fits), got '" +
                   std::string(value) + "'");
}

}  // namespace

BenchFlags take_bench_flags(int& argc, char** argv) {
  BenchFlags flags;
  int kept = 1;  // argv[0] stays
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--validate") {
      flags.validate = true;
    } else if (arg == "--pipeline-statistics") {
      flags.pipeline_statistics = true;
    } else if (arg == "--device") {
      if (i + 1 >= argc) throw UsageError("--device needs a value: a device index or name substring");
      flags.device = argv[++i];
    } else if (arg.starts_with("--device=")) {
      flags.device = std::string(arg.substr(9));
      if (flags.device.empty()) throw UsageError("--device= needs a value: a device index or name substring");
    } else if (arg == "--cache") {
      if (i + 1 >= argc) throw UsageError("--cache needs a value: cold or hot");
      flags.cache = parse_cache(argv[++i]);
    } else if (arg.starts_with("--cache=")) {
      flags.cache = parse_cache(arg.substr(8));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;  // argv stays a null-terminated array, as main received it
  return flags;
}

void print_bench_flags_help() {
  std::printf(
      "phasebench-kernels: kernel micro-benchmarks with GPU time from timestamp queries.\n"
      "  --device D     device index or name substring (default: a discrete GPU, then an\n"
      "                 integrated one, then the CPU device, which runs small shapes)\n"
      "  --validate     run under the Khronos validation layer (slow; for checking, not timing)\n"
      "  --cache C      cold (default): inputs rotate through copies that together exceed the\n"
      "                 last-level cache, as weights are read in decode; hot: one copy, read by\n"
      "                 every invocation, so what fits stays cache-resident\n"
      "  --pipeline-statistics\n"
      "                 add the driver's figures for each kernel's pipeline as counters named\n"
      "                 LABEL.STATISTIC (register count, spills, ...; needs\n"
      "                 VK_KHR_pipeline_executable_properties)\n"
      "Google Benchmark's flags follow.\n\n");
}

}  // namespace pb::bench
