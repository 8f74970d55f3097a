#include "harness/phase.h"

namespace pb {
namespace {

constexpr std::array<std::string_view, kPhaseCount> kPhaseNames = {
    "embed",         "attn_norm",  "attn_qkv",    "attn_rope",  "attn_kv_write", "flash_attn",
    "attn_out",      "ssm_proj",   "ssm_conv",    "ssm_delta",  "ssm_gnorm",     "ssm_out",
    "moe_router",    "moe_topk",   "moe_gate_up", "moe_swiglu", "moe_down",      "moe_acc",
    "shared_expert", "ffn_norm",   "ffn_gate_up", "ffn_act",    "ffn_down",      "final_norm",
    "lm_head",       "sample"};

constexpr std::array<std::string_view, kBucketCount> kBucketNames = {
    "embed", "ssm_projections", "ssm_other", "attention", "moe", "shared_expert", "dense_ffn",
    "tail"};

}  // namespace

std::string_view phase_name(Phase phase) { return kPhaseNames.at(static_cast<size_t>(phase)); }

std::optional<Phase> phase_from_name(std::string_view name) {
  for (size_t i = 0; i < kPhaseCount; ++i) {
    if (kPhaseNames[i] == name) return static_cast<Phase>(i);
  }
  return std::nullopt;
}

Bucket bucket_of(Phase phase) {
  switch (phase) {
    case Phase::Embed: return Bucket::Embed;
    case Phase::SsmProj:
    case Phase::SsmOut: return Bucket::SsmProjections;
    case Phase::SsmConv:
    case Phase::SsmDelta:
    case Phase::SsmGnorm: return Bucket::SsmOther;
    case Phase::AttnNorm:
    case Phase::AttnQkv:
    case Phase::AttnRope:
    case Phase::AttnKvWrite:
    case Phase::FlashAttn:
    case Phase::AttnOut: return Bucket::Attention;
    case Phase::MoeRouter:
    case Phase::MoeTopk:
    case Phase::MoeGateUp:
    case Phase::MoeSwiglu:
    case Phase::MoeDown:
    case Phase::MoeAcc: return Bucket::Moe;
    case Phase::SharedExpert: return Bucket::SharedExpert;
    case Phase::FfnNorm:
    case Phase::FfnGateUp:
    case Phase::FfnAct:
    case Phase::FfnDown: return Bucket::DenseFfn;
    case Phase::FinalNorm:
    case Phase::LmHead:
    case Phase::Sample:
    case Phase::Count: return Bucket::Tail;
  }
  return Bucket::Tail;
}

std::string_view bucket_name(Bucket bucket) { return kBucketNames.at(static_cast<size_t>(bucket)); }

}  // namespace pb
