// One configuration of a run: the model and workload, the engine's forward options and the
// harness's schedule. Every field is an axis value of DESIGN.md and a real code path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/forward/forward_options.h"
#include "engine/model/tensor_plan.h"
#include "harness/barrier_policy.h"
#include "harness/descriptors.h"
#include "harness/profiler.h"
#include "harness/submit_shape.h"

namespace pb {

struct RunConfig {
  std::string model = "tiny-dense";  // a preset name
  std::string gguf;                  // a GGUF file instead of a preset (issue: GGUF loading)
  WeightChoice weights;              // synthetic weight formats
  uint32_t prompt_tokens = 32;
  uint32_t decode_tokens = 16;
  uint32_t seed = 1;                 // synthetic weights and prompt

  ForwardOptions forward;            // prefill strategy, num_cols, chunk_cols, skip_dead_work
  SubmitShape submit{SubmitKind::PerLayer};
  BarrierPolicy barriers = BarrierPolicy::Global;
  bool double_buffer = false;
  DescriptorMode descriptors = DescriptorMode::Persistent;
  ProfileDensity profile = ProfileDensity::Phase;
  uint32_t subgroup = 0;             // required subgroup size; 0 = the driver's default

  bool unsafe() const { return barriers == BarrierPolicy::None; }
  // The model's identity: configs with the same key share loaded weights.
  std::string model_key() const;
};

// Every axis value as JSON, for the result file ("config" of a run). Keys are the scenario
// axis names.
nlohmann::json to_json(const RunConfig& config);

// Applies one axis (`key`, `value`) to `config`. Throws UsageError naming `where` (a file and
// JSON pointer, or a flag), the bad value and the allowed values.
void apply_axis(RunConfig& config, const std::string& key, const nlohmann::json& value,
                const std::string& where);

// The axis keys apply_axis knows, in a stable order.
const std::vector<std::string>& axis_keys();

}  // namespace pb
