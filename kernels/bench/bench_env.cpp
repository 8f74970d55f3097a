#include "kernels/bench/bench_env.h"

#include <benchmark/benchmark.h>

#include <cstdio>

#include "harness/build_info.h"
#include "kernels/bench/rotation.h"
#include "kernels/registry.h"

namespace pb::bench {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

BenchEnv::BenchEnv(const BenchFlags& flags)
    : context_(std::make_unique<Context>(ContextOptions{flags.device, flags.validate})),
      weights_(flags.cache),
      validate_(flags.validate),
      cache_policy_(flags.cache) {
  cache_ = std::make_unique<PipelineCache>(device(), PipelineCache::default_directory());
  pipelines_ = std::make_unique<PipelineSet>(device(), cache_.get());
  if (flags.pipeline_statistics) pipelines_->capture_statistics();
  shapes_ = is_cpu_device() ? cpu_shapes() : model_shapes();
  bandwidth_ = measure_bandwidth();
  device().mutable_info().copy_bandwidth_gbps = bandwidth_.roofline_gbps;
}

BandwidthMeasurement BenchEnv::measure_bandwidth() {
  return measure_copy_bandwidth(device(), find_kernel("copy_vec4"));
}

void BenchEnv::add_benchmark_context() {
  const DeviceInfo& d = info();
  const BuildInfo& b = build_info();
  benchmark::AddCustomContext("device", d.name);
  benchmark::AddCustomContext("device_type", d.type);
  benchmark::AddCustomContext("driver", d.driver_name + " " + d.driver_info);
  benchmark::AddCustomContext("driver_version", d.driver_version);
  benchmark::AddCustomContext("vulkan_api", d.api_version);
  benchmark::AddCustomContext("copy_bandwidth_gbps", fixed(bandwidth_.roofline_gbps, 1));
  benchmark::AddCustomContext("copy_bandwidth_detail",
                              "vkCmdCopyBuffer " + fixed(bandwidth_.transfer_median_gbps, 1) +
                                  " GB/s, copy_vec4 shader " + fixed(bandwidth_.shader_median_gbps, 1) +
                                  " GB/s, read + write of " + std::to_string(bandwidth_.buffer_bytes >> 20) +
                                  " MiB (median)");
  benchmark::AddCustomContext(
      "cooperative_matrix",
      std::string(d.caps.cooperative_matrix ? "device yes" : "device no") +
          (b.has_coopmat_shaders ? ", shaders compiled in" : ", shaders not compiled in"));
  benchmark::AddCustomContext(
      "integer_dot_product",
      std::string(d.caps.integer_dot_product ? "device yes" : "device no") +
          (b.has_intdot_shaders ? ", shaders compiled in" : ", shaders not compiled in"));
  benchmark::AddCustomContext("pipeline_statistics",
                              d.caps.pipeline_executable_info ? "device yes" : "device no");
  benchmark::AddCustomContext("phasebench_commit", b.git_commit);
  benchmark::AddCustomContext("phasebench_version", b.version);
  benchmark::AddCustomContext("phasebench_build",
                              b.build_type + ", " + b.compiler + ", glslang " + b.glslang_version);
  benchmark::AddCustomContext("shapes", shapes_.name);
  benchmark::AddCustomContext("shapes_note", shapes_.description);
  benchmark::AddCustomContext("rotation", rotation_policy(d, cache_policy_));
  benchmark::AddCustomContext(
      "timing",
      "GPU time between two timestamp queries around a command buffer of back-to-back "
      "invocations (one per rotation copy, global barrier after each), divided per invocation");
  if (validate_) benchmark::AddCustomContext("validation", "on: timings include layer overhead");
}

}  // namespace pb::bench
