#include "kernels/bench/gpu_benchmark.h"

#include <set>

#include "harness/pipeline_statistics.h"
#include "kernels/bench/op_timer.h"

namespace pb::bench {
namespace {

// GPU time one timed command buffer aims for: long enough that the timestamps' resolution and
// the first dispatch's ramp-up vanish, short enough that Google Benchmark gets many samples.
constexpr double kBatchTargetNs = 1e6;
constexpr uint32_t kMaxBatchInvocations = 4096;
// Under the validation layer the figures are not timings anyway, and synchronization validation
// slows with every access it tracks in a command buffer.
constexpr uint32_t kMaxValidatedBatchInvocations = 64;

// The driver's statistics of each distinct pipeline of one invocation as counters
// LABEL.STATISTIC (the op's label; a second pipeline under one label adds #2, and so on); none
// where the pipelines were created without them (no --pipeline-statistics).
void add_statistics_counters(benchmark::State& state, const std::vector<const ComputePipeline*>& pipelines,
                             const std::vector<Op>& ops) {
  std::set<const ComputePipeline*> seen;
  std::map<std::string, int> per_label;
  for (size_t i = 0; i < pipelines.size(); ++i) {
    if (!seen.insert(pipelines[i]).second) continue;
    const std::string label = *ops[i].label ? ops[i].label : pipelines[i]->kernel->name;
    const int n = ++per_label[label];
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "#" + to_string.
    std::string prefix = label;
    if (n > 1) prefix.append(1, '#').append(std::to_string(n));
    prefix += '.';
    for (const PipelineStatistic& s : pipelines[i]->statistics) {
      state.counters[prefix + statistic_key(s.name)] = benchmark::Counter(s.value);
    }
  }
}

}  // namespace

struct GpuBenchmarks::Active {
  Active(BenchEnv& env, BenchCase c)
      : bench_case(std::move(c)),
        timer(env.device(), env.pipelines(), bench_case.round, bench_case.invocations) {}
  BenchCase bench_case;
  OpTimer timer;
};

void GpuBenchmarks::add(const std::string& name, CaseBuilder build) {
  builders_[name] = build;
  benchmark::RegisterBenchmark(name.c_str(),
                               [this, name, build](benchmark::State& state) { run(state, name, build); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

const CaseBuilder* GpuBenchmarks::builder(const std::string& name) const {
  const auto it = builders_.find(name);
  return it == builders_.end() ? nullptr : &it->second;
}

GpuBenchmarks::Active& GpuBenchmarks::activate(const std::string& name, const CaseBuilder& build) {
  if (active_ && active_name_ == name) return *active_;
  active_.reset();  // the previous case's buffers go before this one allocates
  active_name_.clear();
  active_ = std::make_shared<Active>(env_, build(env_));
  if (const auto known = calibrated_rounds_.find(name); known != calibrated_rounds_.end()) {
    active_->timer.reuse_calibration(known->second);
  } else {
    const uint32_t max_invocations = env_.validate() ? kMaxValidatedBatchInvocations : kMaxBatchInvocations;
    active_->timer.calibrate(kBatchTargetNs, max_invocations);
    calibrated_rounds_[name] = active_->timer.rounds();
  }
  active_name_ = name;
  return *active_;
}

void GpuBenchmarks::run(benchmark::State& state, const std::string& name, const CaseBuilder& build) {
  try {
    Active& a = activate(name, build);
    double total_ns = 0;
    while (state.KeepRunningBatch(a.timer.invocations_per_batch())) {
      const double ns = a.timer.run_batch();
      total_ns += ns;
      state.SetIterationTime(ns * 1e-9);
    }
    if (env_.validate()) env_.device().check_validation(name);

    const KernelCost& cost = a.bench_case.cost;
    const double invocations = static_cast<double>(state.iterations());
    state.SetBytesProcessed(static_cast<int64_t>(cost.bytes * invocations));
    using benchmark::Counter;
    state.counters["GB/s"] = Counter(cost.bytes / 1e9, Counter::kIsIterationInvariantRate);
    state.counters["GFLOP/s"] = Counter(cost.flops / 1e9, Counter::kIsIterationInvariantRate);
    // A share, not a rate: computed here from the same GPU time the rates use.
    const double achieved_gbps = cost.bytes * invocations / total_ns;
    state.counters["roofline"] = Counter(achieved_gbps / env_.bandwidth().roofline_gbps);
    state.counters["copies"] = Counter(a.bench_case.invocations);
    // What one timed invocation records: a sequence shows its parts' dispatches added up.
    state.counters["dispatches"] =
        Counter(static_cast<double>(a.bench_case.round.size()) / a.bench_case.invocations);
    add_statistics_counters(state, a.timer.first_invocation_pipelines(), a.bench_case.round);
    if (env_.is_cpu_device()) state.SetLabel("cpu-small shapes");
  } catch (const std::exception& e) {
    ++failures_;
    active_.reset();
    active_name_.clear();
    state.SkipWithError(e.what());
  }
}

}  // namespace pb::bench
