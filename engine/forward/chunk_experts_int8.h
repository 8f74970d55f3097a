// Which experts of a matmul prefill chunk take the integer-dot DMMV on int8 inputs instead of
// the experts' tiled matmul (dmmv_activations int8; the dense projections stay on the matmul).
#pragma once

#include <cstdint>

#include "engine/model/tensor_plan.h"
#include "engine/ops/moe_shape.h"

namespace pb {

// The most assignments an expert may serve on average (C * K / E) for a matmul prefill chunk's
// experts to take the integer-dot DMMV. A DMMV pass reads the expert's rows for one assignment;
// the matmul's chain of K steps costs the same for 1 as for 32 and dominates a chunk where most
// experts serve one or two. Ms per 512-token prefill on an H200 (docs/GPU_FIGURES.md), DMMV
// against matmul. Gate and up: qwen35-35b-a3b (256 experts, top 8) 64 / 179 at 1 a expert,
// 49 / 125 at 2, 42 / 67 at 4; qwen3-30b-a3b (128, top 8) 115 / 129 at 2, 109 / 74 at 4. Down, in
// row teams (moe_dmmv_intdot_tuning): qwen35-35b-a3b 31.0 / 84.9 at 1, qwen3-30b-a3b 58.7 / 48.3
// at 2 (qwen35-35b-a3b won at 2, +21% prefill tok/s in chunks of 64, but one loss is enough to
// keep down to 1).
inline constexpr double kExpertDmmvMostPerExpert = 2;
inline constexpr double kExpertDownDmmvMostPerExpert = 1;

// Whether the experts `role` (gate or up: `cols` are the chunk's tokens; down: its assignments,
// tokens x K) of a matmul chunk serve few enough assignments an expert for the DMMV. False for
// any other role.
inline bool chunk_experts_serve_few(const MoeShape& m, TensorRole role, uint32_t cols) {
  const bool down = role == TensorRole::MoeDownExps;
  if (!down && role != TensorRole::MoeGateExps && role != TensorRole::MoeUpExps) return false;
  const double assignments = down ? double(cols) : double(cols) * m.top_k;
  return assignments <= (down ? kExpertDownDmmvMostPerExpert : kExpertDmmvMostPerExpert) * m.n_experts;
}

}  // namespace pb
