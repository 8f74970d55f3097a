// Options every command that runs on a GPU shares: which device, validation, the pipeline cache.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "harness/device.h"
#include "harness/pipeline.h"
#include "harness/pipeline_cache.h"
#include "harness/transfer.h"

namespace pb::app {

struct DeviceOptions {
  std::string device;           // index or name substring
  bool validate = false;        // Khronos validation with synchronization validation
  std::string pipeline_cache;   // folder; empty = the default one
  bool no_pipeline_cache = false;
  bool no_bandwidth = false;    // skip the copy-bandwidth probe (the roofline)

  void add_to(CLI::App& command);
};

// Everything opened for one command: context, pipeline cache and set, transfer helper.
struct GpuSession {
  explicit GpuSession(const DeviceOptions& options);
  std::unique_ptr<Context> context;
  std::unique_ptr<PipelineCache> cache;
  std::unique_ptr<PipelineSet> pipelines;
  std::unique_ptr<Transfer> transfer;
  double copy_bandwidth_gbps = 0;  // 0 when not measured
  std::string cache_state;         // "warm", "cold" or "off"

  Device& device() { return context->device(); }
};

}  // namespace pb::app
