#include "kernels/bench/bench_flags.h"

#include <cmath>
#include <cstdio>
#include <string>
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

double parse_max_spread(std::string_view value) {
  const std::string text(value);
  size_t used = 0;
  double percent = -1;
  try {
    percent = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(percent >= 0) || !std::isfinite(percent)) {
    throw UsageError("--max-spread: expected a percentage of 0 or more (the widest spread of a benchmark's "
                     "repetitions, and the change of the copy bandwidth, that pass without a warning; "
                     "default 5), got '" + text + "'");
  }
  return percent / 100;
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
    } else if (arg == "--max-spread") {
      if (i + 1 >= argc) throw UsageError("--max-spread needs a value: a percentage, for example 5");
      flags.max_spread = parse_max_spread(argv[++i]);
    } else if (arg.starts_with("--max-spread=")) {
      flags.max_spread = parse_max_spread(arg.substr(13));
    } else {
      // Google Benchmark's flags stay for it; these two are read here too.
      if (arg.starts_with("--benchmark_out=")) flags.benchmark_out = std::string(arg.substr(16));
      if (arg.starts_with("--benchmark_out_format=")) flags.benchmark_out_json = arg.substr(23) == "json";
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
      "  --max-spread P after the run, warn about each benchmark whose repetitions are more\n"
      "                 than P percent apart (slowest over fastest), and when the copy bandwidth\n"
      "                 measured again at the end moved by more than P percent (default 5)\n"
      "Google Benchmark's flags follow.\n\n");
}

}  // namespace pb::bench
