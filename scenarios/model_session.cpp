#include "scenarios/model_session.h"

#include <algorithm>
#include <optional>

#include "engine/forward/int8mat_split_sums.h"
#include "engine/model/gguf_model.h"
#include "engine/model/presets.h"
#include "engine/ops/attention_decode_op.h"
#include "engine/ops/matmul_split.h"
#include "harness/device.h"
#include "harness/errors.h"
#include "harness/transfer.h"

namespace pb {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

ModelConfig model_config_for(const RunConfig& config) {
  // Opening plans and checks every tensor, so a file phasebench cannot run fails before the device.
  if (!config.gguf.empty()) return GgufModel::open(config.gguf).config();
  return preset(config.model);
}

std::vector<uint32_t> synthetic_prompt(uint32_t seed, uint32_t length, uint32_t vocab) {
  std::vector<uint32_t> tokens(length);
  for (uint32_t i = 0; i < length; ++i) {
    tokens[i] = static_cast<uint32_t>(splitmix((uint64_t(seed) << 32) | i) % vocab);
  }
  return tokens;
}

ActivationSizes ModelSession::sizes_for(const ModelConfig& model, const std::vector<RunConfig>& configs) {
  ActivationSizes s;
  for (const auto& c : configs) {
    s.max_cols = std::max(s.max_cols, std::min(c.forward.max_cols(), c.prompt_tokens));
    s.max_ctx = std::max(s.max_ctx, c.prompt_tokens + c.decode_tokens + 1);
    s.quantized_inputs = s.quantized_inputs || c.forward.dmmv_activations == DmmvActivations::Int8;
    s.matmul_prefill = s.matmul_prefill || (c.forward.prefill == PrefillStrategy::Matmul && c.forward.allow_coopmat);
  }
  // Scratch for split decode attention, sized for the widest head and the smallest split.
  uint32_t widest_head = model.head_dim;
  for (uint32_t l = 0; l < model.n_layers; ++l) {
    if (model.layer_kind(l) != LayerKind::DeltaNet) widest_head = std::max(widest_head, model.attention(l).head_dim);
  }
  s.attention_scratch_bytes =
      attention_decode_scratch_bytes(model.n_heads, widest_head, s.max_ctx, AttentionDecodeTuning{}.split);
  return s;
}

ModelSession::ModelSession(Device& device, PipelineSet& pipelines, Transfer& transfer,
                           const RunConfig& run, const ActivationSizes& sizes)
    : config_(model_config_for(run)), transfer_(transfer) {
  ActivationSizes aligned = sizes;
  aligned.binding_alignment = std::max<uint64_t>(device.info().min_storage_buffer_offset_alignment, 16);
  // A GGUF file brings its own tensor formats (run.weights is for synthetic weights only).
  std::optional<GgufModel> gguf;
  if (!run.gguf.empty()) gguf.emplace(GgufModel::open(run.gguf));
  auto plan = gguf ? gguf->plan() : plan_tensors(config_, run.weights);
  const uint64_t weight_bytes = plan_bytes(plan);
  if (aligned.quantized_inputs) {
    aligned.int8mat_split_bytes = int8mat_split_sums_bytes(plan, device.info(), aligned.max_cols);
  }
  if (aligned.matmul_prefill) aligned.matmul_split_bytes = matmul_split_scratch_bytes(device.info());
  const uint64_t activation_bytes = Activations::bytes_needed(config_, aligned);
  const std::string weights_name = gguf ? "GGUF (" + run.gguf + ")" : run.weights.name();
  require_device_memory(device, "model '" + config_.name + "' with " + weights_name + " weights",
                        weight_bytes + activation_bytes,
                        "weights " + std::to_string(weight_bytes) + " bytes, KV cache and activations " +
                            std::to_string(activation_bytes) + " bytes");
  weights_ = std::make_unique<ModelWeights>(
      gguf ? gguf->upload(device, transfer)
           : ModelWeights::synthetic(device, pipelines, transfer, config_, std::move(plan), run.seed));
  activations_ = std::make_unique<Activations>(device, config_, aligned);
  // Defined contents: nothing ever reads an unwritten byte, and the fingerprint outputs start
  // known.
  transfer.fill(activations_->tokens, 0, activations_->tokens.size(), 0);
  transfer.fill(activations_->top2, 0, activations_->top2.size(), 0);
}

ModelFacts ModelSession::facts() const {
  ModelFacts f;
  f.name = config_.name;
  f.architecture = architecture_name(config_.arch);
  f.layers = config_.n_layers;
  f.weight_bytes = weights_->bytes();
  for (const auto& t : weights_->tensors()) {
    const bool table = t.spec.role == TensorRole::TokenEmbd;
    // A decode token reads one embedding row, and only its top_k of the routed experts.
    uint64_t bytes = table ? t.spec.bytes() / t.spec.rows : t.spec.bytes();
    if (t.spec.experts > 1) bytes = bytes / t.spec.experts * config_.moe.top_k;
    f.weight_bytes_per_token += bytes;
    if (table && config_.tied_embeddings) f.weight_bytes_per_token += t.spec.bytes();
  }
  return f;
}

std::vector<uint32_t> ModelSession::load_prompt(uint32_t seed, uint32_t length) {
  auto prompt = synthetic_prompt(seed, length, config_.vocab);
  transfer_.upload_from<uint32_t>(activations_->tokens, 0, prompt);
  // The sliced argmax's arrival counters start at zero and every dispatch leaves them so; zeroed
  // here for each run, so that a run that failed mid-dispatch cannot leave the next one wrong.
  transfer_.fill(activations_->argmax_partials, 0, activations_->argmax_partials.size(), 0);
  // So are the int8 matrix DMMV's K-split counters.
  if (activations_->int8mat_split_sums.size() > 0) {
    transfer_.fill(activations_->int8mat_split_sums, 0, activations_->int8mat_split_sums.size(), 0);
  }
  // And those of decode's MoE down with the accumulation, of a chunk's routing with its work
  // list (in the routing buffer), and of the conv and the norm inside the recurrence.
  for (const Buffer* arrivals : {&activations_->moe_acc_arrivals, &activations_->routing,
                                 &activations_->ssm_conv_arrivals, &activations_->ssm_head_arrivals}) {
    if (arrivals->size() > 0) transfer_.fill(*arrivals, 0, arrivals->size(), 0);
  }
  return prompt;
}

}  // namespace pb
