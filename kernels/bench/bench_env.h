// What every benchmark of one phasebench-kernels process shares: the device, its pipelines, the
// copy bandwidth measured once at start (the roofline), the shape set for the device and the
// cache of synthetic weights.
#pragma once

#include <memory>

#include "harness/bandwidth.h"
#include "harness/device.h"
#include "harness/pipeline.h"
#include "harness/pipeline_cache.h"
#include "kernels/bench/bench_flags.h"
#include "kernels/bench/shape_set.h"
#include "kernels/bench/weight_cache.h"

namespace pb::bench {

class BenchEnv {
 public:
  // Opens the device and measures its copy bandwidth. Throws UsageError for a device that does
  // not exist or has no timestamps.
  explicit BenchEnv(const BenchFlags& flags);

  Device& device() { return context_->device(); }
  const DeviceInfo& info() { return device().info(); }
  PipelineSet& pipelines() { return *pipelines_; }
  WeightCache& weights() { return weights_; }
  const BandwidthMeasurement& bandwidth() const { return bandwidth_; }
  // The copy bandwidth measured now: at the start for the roofline (bandwidth()), and again after
  // the run (did the device stay as it was?).
  BandwidthMeasurement measure_bandwidth();
  const ShapeSet& shapes() const { return shapes_; }
  bool is_cpu_device() { return info().type == "cpu"; }
  bool validate() const { return validate_; }
  InputCache input_cache() const { return cache_policy_; }

  // Device, driver, build and bandwidth into the benchmark context (the JSON's "context").
  void add_benchmark_context();

 private:
  std::unique_ptr<Context> context_;
  std::unique_ptr<PipelineCache> cache_;
  std::unique_ptr<PipelineSet> pipelines_;
  BandwidthMeasurement bandwidth_;
  ShapeSet shapes_;
  WeightCache weights_;
  bool validate_ = false;
  InputCache cache_policy_ = InputCache::Cold;
};

}  // namespace pb::bench
