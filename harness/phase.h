// Phase tags of ops and the buckets charts group them into (DESIGN.md, Phases).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pb {

enum class Phase : uint8_t {
  Embed, AttnNorm, AttnQkv, AttnRope, AttnKvWrite, FlashAttn, AttnOut,
  SsmProj, SsmConv, SsmDelta, SsmGnorm, SsmOut,
  MoeRouter, MoeTopk, MoeGateUp, MoeSwiglu, MoeDown, MoeAcc, SharedExpert,
  FfnNorm, FfnGateUp, FfnAct, FfnDown,
  FinalNorm, LmHead, Sample,
  Count
};
inline constexpr size_t kPhaseCount = static_cast<size_t>(Phase::Count);

// The chart buckets; the CPU + submit/wait gap is the ninth, derived from wall time.
enum class Bucket : uint8_t {
  Embed, SsmProjections, SsmOther, Attention, Moe, SharedExpert, DenseFfn, Tail, Count
};
inline constexpr size_t kBucketCount = static_cast<size_t>(Bucket::Count);

std::string_view phase_name(Phase phase);                 // "attn_qkv"
std::optional<Phase> phase_from_name(std::string_view name);
Bucket bucket_of(Phase phase);
std::string_view bucket_name(Bucket bucket);              // "attention"

}  // namespace pb
