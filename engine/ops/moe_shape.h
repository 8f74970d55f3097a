// The mixture-of-experts shape of a model's FFN (Qwen3-30B-A3B: 128 experts top-8, expert FFN
// 768; Qwen3.5-35B-A3B: 256 top-8, 512, and a 512-wide shared expert). Plain data: the model
// config carries it, the MoE op builders and the CPU reference read it.
#pragma once

#include <cstdint>

namespace pb {

struct MoeShape {
  uint32_t n_experts = 0;          // E: routed experts per layer; 0 = a dense FFN
  uint32_t top_k = 0;              // K: experts each token is routed to
  uint32_t expert_ffn = 0;         // F: FFN width of one routed expert
  uint32_t shared_expert_ffn = 0;  // FFN width of the always-on shared expert; 0 = none
  bool norm_topk = true;           // the K route weights are renormalized to sum 1

  bool has_moe() const { return n_experts != 0; }
  bool has_shared_expert() const { return shared_expert_ffn != 0; }
  bool operator==(const MoeShape&) const = default;
};

}  // namespace pb
