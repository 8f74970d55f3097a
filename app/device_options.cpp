#include "app/device_options.h"

#include "harness/bandwidth.h"
#include "kernels/registry.h"

namespace pb::app {

void DeviceOptions::add_to(CLI::App& command) {
  command.add_option("--device", device, "Device index or name substring");
  command.add_flag("--validate", validate,
                   "Run under the Khronos validation layer with synchronization validation");
  command.add_option("--pipeline-cache", pipeline_cache,
                     "Folder of the on-disk pipeline cache (default ~/.cache/phasebench/pipelines)");
  command.add_flag("--no-pipeline-cache", no_pipeline_cache, "Do not read or write a pipeline cache");
  command.add_flag("--no-bandwidth", no_bandwidth,
                   "Skip the copy-bandwidth probe (the roofline bandwidth shares are divided by)");
}

GpuSession::GpuSession(const DeviceOptions& o)
    : context(std::make_unique<Context>(ContextOptions{o.device, o.validate})) {
  std::filesystem::path dir;
  if (!o.no_pipeline_cache) {
    dir = o.pipeline_cache.empty() ? PipelineCache::default_directory()
                                   : std::filesystem::path(o.pipeline_cache);
  }
  cache = std::make_unique<PipelineCache>(device(), dir);
  cache_state = dir.empty() ? "off" : cache->loaded_from_disk() ? "warm" : "cold";
  pipelines = std::make_unique<PipelineSet>(device(), cache.get());
  transfer = std::make_unique<Transfer>(device());
  if (!o.no_bandwidth) {
    copy_bandwidth_gbps = measure_copy_bandwidth(device(), find_kernel("copy_vec4")).roofline_gbps;
    context->device().mutable_info().copy_bandwidth_gbps = copy_bandwidth_gbps;
  }
}

}  // namespace pb::app
