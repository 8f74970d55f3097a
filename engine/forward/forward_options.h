// What the engine's forward pass does with a prompt (DESIGN.md: the engine's prefill strategy
// decides which ops exist; the harness's schedule decides how they reach the GPU).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/ops/num_cols.h"

namespace pb {

enum class PrefillStrategy {
  DecodeLoop,  // one token at a time through the NUM_COLS = 1 DMMV, as decode does
  Batched,     // chunks of chunk_cols tokens through the batched DMMV (NUM_COLS variants)
  Matmul,      // chunks of chunk_cols tokens through the tiled matmul (cooperative matrix
               // where the device and the compiler allow)
};

// What a DMMV projection reads as its input (the `dmmv_activations` axis).
enum class DmmvActivations {
  Float,  // the float32 activations, dequantizing every weight to float (kernels/dmmv_*.comp)
  Int8,   // the activations quantized to int8 blocks once per input (quantize_x), multiplied
          // with the weights' own integer quants by packed dot products (kernels/intdot/);
          // projections whose format has no integer path (F32, F16) stay float
};

// Where a decode op whose output feeds int8 projections runs (the `norm_placement` and
// `glu_placement` axes): in a dispatch of its own that also writes its output's int8 form, or in
// the projection that produces its input, which then writes that int8 form itself. Needs
// dmmv_activations int8; where an op cannot move (prefill, a float reader, no single projection
// before it) it keeps its dispatch.
//   norm_placement producer: an RMSNorm after a residual projection (the attention output, the
//     FFN down) is written by it, and the projections that read it divide by the RMS
//     (kernels/include/dmmv_intdot_norm_epilogue.glsl)
//   glu_placement producer: the FFN's gated unit is applied by the stacked gate and up
//     projection (kernels/include/dmmv_intdot_glu_epilogue.glsl)
enum class Placement {
  Dispatch,
  Producer,
};

std::string_view placement_name(Placement p);
std::optional<Placement> parse_placement(std::string_view name);
inline constexpr std::string_view kPlacementValues = "dispatch, producer";

std::string_view dmmv_activations_name(DmmvActivations a);
std::optional<DmmvActivations> parse_dmmv_activations(std::string_view name);
inline constexpr std::string_view kDmmvActivationsValues = "float, int8";

std::string_view prefill_strategy_name(PrefillStrategy s);
std::optional<PrefillStrategy> parse_prefill_strategy(std::string_view name);
inline constexpr std::string_view kPrefillStrategyValues = "decode-loop, batched, matmul";

struct ForwardOptions {
  PrefillStrategy prefill = PrefillStrategy::DecodeLoop;
  NumColsMode num_cols;         // which DMMV pipelines serve a column count
  uint32_t chunk_cols = 32;     // prompt tokens per chunk (batched, matmul)
  bool skip_dead_work = false;  // skip the tail and the last layer's unread work for
                                // non-terminal prompt tokens
  bool allow_coopmat = true;    // matmul and the int8 DMMV of several columns may use cooperative matrix where available
  // The matmul prefill stays float, but for the experts of chunks where an expert serves few
  // assignments (ffn_block.cpp, chunk_experts_int8).
  DmmvActivations dmmv_activations = DmmvActivations::Float;
  Placement norm_placement = Placement::Dispatch;
  Placement glu_placement = Placement::Dispatch;

  // Columns one chunk can hold: the activation buffers are sized for it.
  uint32_t max_cols() const { return prefill == PrefillStrategy::DecodeLoop ? 1 : chunk_cols; }
};

}  // namespace pb
