// What the driver reports about a compiled compute pipeline through
// VK_KHR_pipeline_executable_properties: register count, spills, code size, shared memory and
// the like, under the driver's own names (NVIDIA, RADV and AMD's drivers each name theirs).
// Register pressure decides occupancy and spills, which timings alone cannot tell apart, so
// phasebench-kernels can report these next to each kernel's time (--pipeline-statistics).
#pragma once

#include <volk.h>

#include <string>
#include <vector>

namespace pb {

class Device;

struct PipelineStatistic {
  std::string name;         // as the driver names it, e.g. "Register Count"; prefixed with the
                            // executable's name where the pipeline has several
  std::string description;  // the driver's description
  double value = 0;         // booleans as 0 or 1
};

// The statistics of every executable of `pipeline`, which must have been created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on a device with pipelineExecutableInfo enabled.
std::vector<PipelineStatistic> query_pipeline_statistics(const Device& device, VkPipeline pipeline);

// `name` as a counter name: lower case, runs of anything but letters and digits as one '_'
// ("Register Count" -> "register_count").
std::string statistic_key(const std::string& name);

}  // namespace pb
