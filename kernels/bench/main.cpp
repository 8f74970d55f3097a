// phasebench-kernels: kernel micro-benchmarks on Google Benchmark, timed on the GPU. Its own
// flags (--device, --validate) are taken out of argv first; every Google Benchmark flag works
// as documented (--benchmark_filter, --benchmark_format=json, --benchmark_repetitions,
// --benchmark_out, ...). After the run it states the run's steadiness (steadiness.h). Exit
// status: 0 every benchmark ran, 1 one failed, 2 bad usage.
#include <benchmark/benchmark.h>

#include <iostream>

#include "harness/errors.h"
#include "kernels/bench/bench_env.h"
#include "kernels/bench/bench_flags.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/repetition_spread.h"
#include "kernels/bench/steadiness.h"

namespace {

void print_help() {
  pb::bench::print_bench_flags_help();
  benchmark::PrintDefaultHelp();
}

// After the run: the copy bandwidth again and the repetitions' spread, on stderr (stdout may
// be the JSON) and into the --benchmark_out file where that is JSON.
void state_steadiness(pb::bench::BenchEnv& env, const pb::bench::BenchFlags& flags,
                      const pb::bench::SpreadRecorder& recorder) {
  pb::bench::Steadiness s;
  s.spreads = recorder.spreads();
  s.unchecked = recorder.unchecked();
  s.bandwidth_start_gbps = env.bandwidth().roofline_gbps;
  s.bandwidth_end_gbps = env.measure_bandwidth().roofline_gbps;
  s.limit = flags.max_spread;
  s.cpu_device = env.is_cpu_device();
  std::cerr << pb::bench::steadiness_text(s);
  if (!flags.benchmark_out.empty() && flags.benchmark_out_json) {
    pb::bench::add_steadiness_to_json(flags.benchmark_out, s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const pb::bench::BenchFlags flags = pb::bench::take_bench_flags(argc, argv);
    benchmark::Initialize(&argc, argv, print_help);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

    pb::bench::BenchEnv env(flags);
    env.add_benchmark_context();
    pb::bench::GpuBenchmarks benchmarks(env);
    pb::bench::register_dmmv_benchmarks(benchmarks);
    pb::bench::register_dmmv_intdot_benchmarks(benchmarks);
    pb::bench::register_matmul_benchmarks(benchmarks);
    pb::bench::register_attention_benchmarks(benchmarks);
    pb::bench::register_elementwise_benchmarks(benchmarks);
    pb::bench::register_embed_benchmarks(benchmarks);
    pb::bench::register_moe_benchmarks(benchmarks);
    pb::bench::register_ssm_benchmarks(benchmarks);
    pb::bench::register_read_floor_benchmarks(benchmarks);
    pb::bench::register_sequence_benchmarks(benchmarks);

    pb::bench::SpreadRecorder recorder(
        std::unique_ptr<benchmark::BenchmarkReporter>(benchmark::CreateDefaultDisplayReporter()));
    benchmark::RunSpecifiedBenchmarks(&recorder);
    benchmark::Shutdown();
    if (recorder.reported() > 0) state_steadiness(env, flags, recorder);
    if (benchmarks.failures() > 0) {
      std::cerr << "phasebench-kernels: " << benchmarks.failures()
                << " benchmark(s) failed (see their error_message)\n";
      return 1;
    }
    return 0;
  } catch (const pb::UsageError& e) {
    std::cerr << "phasebench-kernels: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "phasebench-kernels: " << e.what() << "\n";
    return 1;
  }
}
