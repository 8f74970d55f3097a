// What the forward-pass tests share: a tiny model's run configuration from the few axes they
// vary, and the kernels that run's op stream emits. The reference tests (forward_reference_test)
// run those configurations against the CPU; the placement tests (placement_test) count the
// dispatches they record.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "engine/model/presets.h"
#include "harness/pipeline.h"
#include "kernels/registry.h"
#include "scenarios/model_session.h"
#include "scenarios/run_executor.h"
#include "tests/support/gpu_test.h"

namespace pb::test {

inline constexpr uint32_t kPrompt = 11;  // not a multiple of any chunk width used
inline constexpr uint32_t kDecode = 5;

struct ForwardCase {
  std::string model;
  PrefillStrategy prefill;
  BarrierPolicy barriers;
  uint32_t chunk_cols;
  DmmvActivations activations = DmmvActivations::Float;
  Placement norms = Placement::Dispatch;
  Placement glu = Placement::Dispatch;
  WeightChoice weights = {};  // q4_k_m: Q6_K ffn_down and attn_v, Q4_K the rest
};

inline void PrintTo(const ForwardCase& c, std::ostream* os) {
  *os << c.model << " " << prefill_strategy_name(c.prefill) << " " << barrier_policy_name(c.barriers)
      << " chunk " << c.chunk_cols << " " << dmmv_activations_name(c.activations) << " norms "
      << placement_name(c.norms) << " glu " << placement_name(c.glu) << " weights " << c.weights.name();
}

// A per-layer submit of kPrompt tokens and kDecode steps with the case's axes.
inline RunConfig config_for(const ForwardCase& c) {
  RunConfig r;
  r.model = c.model;
  r.prompt_tokens = kPrompt;
  r.decode_tokens = kDecode;
  r.forward.prefill = c.prefill;
  r.forward.chunk_cols = c.chunk_cols;
  r.forward.dmmv_activations = c.activations;
  r.forward.norm_placement = c.norms;
  r.forward.glu_placement = c.glu;
  r.barriers = c.barriers;
  r.submit = SubmitShape{SubmitKind::PerLayer};
  r.weights = c.weights;
  return r;
}

// The decode (or the prefill) stream's ops counted by kernel name, or with `labels` by the
// forward pass's label of each.
inline std::map<std::string, int> stream_kernels(const RunConfig& run, bool prefill, bool labels) {
  PipelineSet pipelines(device(), nullptr);
  ModelSession session(device(), pipelines, transfer(), run, ModelSession::sizes_for(preset(run.model), {run}));
  RunExecutor executor(device(), pipelines, session, run);
  std::map<std::string, int> count;
  for (const Op& op : executor.ops(prefill)) ++count[labels ? op.label : op.kernel->name];
  return count;
}

inline std::map<std::string, int> decode_kernels(const RunConfig& run, bool labels = false) {
  return stream_kernels(run, false, labels);
}

// Whether the integer-dot path runs here: `kernel` (an int8 producer) compiled in and the
// device's integer dot products (the placement tests of int8 producers skip without them).
inline bool int8_path_here(const char* kernel = "quantize_x") {
  return find_kernel(kernel) != nullptr && device().info().caps.integer_dot_product;
}

// How many ops of `name` a count holds (zero where none ran).
inline int count_of(const std::map<std::string, int>& counts, const std::string& name) {
  const auto it = counts.find(name);
  return it == counts.end() ? 0 : it->second;
}

}  // namespace pb::test
