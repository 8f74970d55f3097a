// A benchmark as phasebench-kernels registers it: a builder that allocates a kernel's inputs
// (rotation copies of them) and emits its ops, and the loop that times them on the GPU and
// reports Google Benchmark's manual time plus counters from the kernel's bytes/FLOPs model.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/op.h"
#include "kernels/bench/bench_env.h"
#include "kernels/bench/kernel_cost.h"

namespace pb::bench {

// What one benchmark times: one invocation per rotation copy, in order.
struct BenchCase {
  std::vector<std::shared_ptr<const void>> resources;  // buffers the ops bind, kept alive
  std::vector<Op> round;                               // every invocation's ops, invocation after invocation
  uint32_t invocations = 0;                            // invocations in `round` (the rotation copies)
  KernelCost cost;                                     // of one invocation
};

using CaseBuilder = std::function<BenchCase(BenchEnv&)>;

// Keeps a device buffer alive in BenchCase::resources and returns it.
template <typename T>
const T& keep(BenchCase& c, T&& value) {
  auto owned = std::make_shared<T>(std::forward<T>(value));
  c.resources.push_back(owned);
  return *owned;
}

class GpuBenchmarks {
 public:
  explicit GpuBenchmarks(BenchEnv& env) : env_(env) {}
  GpuBenchmarks(const GpuBenchmarks&) = delete;
  GpuBenchmarks& operator=(const GpuBenchmarks&) = delete;

  // Registers `name` with Google Benchmark (manual time, microseconds). The case is built
  // when the benchmark first runs and kept while Google Benchmark repeats it.
  void add(const std::string& name, CaseBuilder build);
  // The builder registered as `name`, or null: sequences (sequence_bench.cpp) compose them.
  const CaseBuilder* builder(const std::string& name) const;

  BenchEnv& env() { return env_; }
  int failures() const { return failures_; }

 private:
  struct Active;
  void run(benchmark::State& state, const std::string& name, const CaseBuilder& build);
  Active& activate(const std::string& name, const CaseBuilder& build);

  BenchEnv& env_;
  std::string active_name_;
  std::shared_ptr<Active> active_;
  std::map<std::string, CaseBuilder> builders_;
  // Each case's calibrated rounds per batch, kept for when the case is built again: with
  // --benchmark_enable_random_interleaving every repetition builds it anew, and Google Benchmark
  // requires the repetitions of a benchmark to run the same number of iterations, which
  // KeepRunningBatch rounds to the batch.
  std::map<std::string, uint32_t> calibrated_rounds_;
  int failures_ = 0;
};

}  // namespace pb::bench
