// Runs a short list of ops once, outside any measurement: weight generation, tests, probes.
#pragma once

#include <span>

#include "harness/barrier_policy.h"
#include "harness/op.h"

namespace pb {

class Device;
class PipelineSet;

// Records `ops` into one command buffer, submits it, waits, and checks the validation log.
void run_immediately(Device& device, PipelineSet& pipelines, std::span<const Op> ops,
                     BarrierPolicy barriers = BarrierPolicy::Global);

}  // namespace pb
