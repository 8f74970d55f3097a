// CPU reference of the mixture-of-experts FFN: each MoE kernel (top-k routing, grouping,
// expert DMMV, weighted accumulation) and the whole block on dequantized weights, which the
// reference forward calls. Dot products and sums in float64, each kernel's output rounded to
// float32 where the GPU stores one.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/ops/moe_shape.h"
#include "engine/quant/weight_format.h"

namespace pb::ref {

// Per token t < ncols (E logits at t * logits_stride): the softmax over the numbers of the row
// and the K best experts in the kernel's order (larger logit first, equal logits by lower
// index with -0 == +0, NaN after every number, NaN logits probability 0), their probabilities
// divided by the K's sum when norm_topk (left as they are when that sum is 0).
// route_e/route_w are [ncols][K].
void moe_topk(std::span<const float> logits, uint32_t logits_stride, uint32_t n_experts,
              uint32_t top_k, bool norm_topk, uint32_t ncols, std::span<uint32_t> route_e,
              std::span<float> route_w);

// The work list of moe_group.comp: items (expert, count, first, 0) in increasing expert
// order, and the assignment indices grouped by expert, increasing within each. Ids >= E are
// dropped.
struct MoeWorkList {
  std::vector<std::array<uint32_t, 4>> items;
  std::vector<uint32_t> assignments;
};
MoeWorkList moe_group(std::span<const uint32_t> route_e, uint32_t n_experts);

// The expert DMMV: for each assignment a < route_e.size(), y[a * y_stride + r] =
// sum_k W[route_e[a]][r][k] * x[col * x_stride + k] with col = a (input_per_assignment) or
// a / top_k; W is [E][rows][cols] in `format`, dequantized exactly.
void moe_dmmv(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
              std::span<const uint32_t> route_e, uint32_t top_k, bool input_per_assignment,
              std::span<const float> x, uint32_t x_stride, std::span<float> y, uint32_t y_stride);

// x[c][i] += sum_j route_w[c*K + j] * out[(c*K + j) * out_stride + i].
void moe_acc(std::span<const float> route_w, uint32_t top_k, std::span<const float> out,
             uint32_t out_stride, std::span<float> x, uint32_t x_stride, uint32_t n, uint32_t ncols);

// One layer's MoE weights, dequantized, row-major (GGUF's stacking: expert e's matrix is
// block e of the stacked tensor).
struct MoeDenseWeights {
  std::span<const float> router;           // [E][hidden] (ffn_gate_inp)
  std::span<const float> gate_exps;        // [E][F][hidden]
  std::span<const float> up_exps;          // [E][F][hidden]
  std::span<const float> down_exps;        // [E][hidden][F]
  std::span<const float> shared_gate;      // [Fs][hidden]; empty without a shared expert
  std::span<const float> shared_up;        // [Fs][hidden]
  std::span<const float> shared_down;      // [hidden][Fs]
  std::span<const float> shared_gate_inp;  // [hidden]: the shared expert's scalar gate; empty = none
};

// A whole tensor of `rows` rows (all experts' rows for a stacked one) dequantized, for
// MoeDenseWeights.
std::vector<float> dequantize_tensor(WeightFormat format, std::span<const uint8_t> bytes, uint64_t rows,
                                     uint32_t cols);

// The MoE FFN of ncols tokens added into the residual stream, in the GPU's order:
//   logits = router xn; (e, w) = moe_topk(logits); h_a = silu(W_gate[e] xn) * (W_up[e] xn);
//   x += sum_j w_j W_down[e_j] h_j;
//   then with a shared expert: s = W_sdown (silu(W_sgate xn) * (W_sup xn)), times
//   sigmoid(shared_gate_inp . xn) when that gate exists; x += s.
// xn (the FFN-normed input) and x are columns of `hidden` floats at their strides.
void moe_block(const MoeShape& shape, uint32_t hidden, const MoeDenseWeights& weights,
               std::span<const float> xn, uint32_t xn_stride, std::span<float> x, uint32_t x_stride,
               uint32_t ncols);

}  // namespace pb::ref
