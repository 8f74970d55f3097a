// Op builder for the Gated DeltaNet recurrence (kernels/ssm_delta.comp), phase ssm_delta: all
// tokens of a chunk, in order, in one dispatch, the per-layer state S carried across calls.
// Per value head h (key head h / group) and token t:
//   q = l2norm(q_t) / sqrt(d_k), k = l2norm(k_t), l2norm(x) = x / sqrt(x.x + l2_eps)
//     (eps inside the square root, on the sum of squares, as Hugging Face's l2norm; llama.cpp
//     uses x / max(|x|, eps): the two differ only for |x| near eps)
//   beta = sigmoid(b_t[h]), g = -exp(A_log[h]) * softplus(a_t[h] + dt_bias[h])
//   S = exp(g) S;  delta = beta (v_t[h] - S^T k);  S = S + k delta^T;  o_t[h] = S^T q
#pragma once

#include <cstdint>

#include "engine/ops/ssm_shape.h"
#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct SsmDeltaPush {
  uint32_t group;       // value heads per key head (SsmShape::group())
  uint32_t d_v;         // columns of S, floats per v and o head
  uint32_t ncols;       // tokens in the chunk
  uint32_t qkv_stride;  // floats between conv-output columns
  uint32_t q_offset;    // floats from a conv-output column's start to q head 0
  uint32_t k_offset;    // floats from a conv-output column's start to k head 0
  uint32_t v_offset;    // floats from a conv-output column's start to v head 0
  uint32_t b_stride;    // floats between b columns
  uint32_t a_stride;    // floats between a columns
  uint32_t o_stride;    // floats between o columns
  float l2_eps;         // added to the sum of squares inside the l2 norm's square root
};

struct SsmDeltaProblem {
  SsmShape shape;
  TensorView qkv;      // conv output: column c at float c * qkv_stride, q, k, v parts at offsets
  TensorView b;        // column c at float c * b_stride: value_heads floats (beta logits)
  TensorView a;        // column c at float c * a_stride: value_heads floats (decay inputs)
  TensorView a_log;    // value_heads f32: A_log, or A = -exp(A_log) with a_is_neg_exp
  TensorView dt_bias;  // value_heads f32
  TensorView state;    // [value_heads][d_k][d_v] f32 (SsmShape::delta_state_floats()); read and written
  TensorView o;        // column c at float c * o_stride: [value_heads][d_v]; overlaps no input
  uint32_t ncols = 1;
  uint32_t qkv_stride = 0;
  uint32_t q_offset = 0;  // SsmShape::q_offset() for the fused conv output
  uint32_t k_offset = 0;  // SsmShape::k_offset()
  uint32_t v_offset = 0;  // SsmShape::v_offset()
  uint32_t b_stride = 0;
  uint32_t a_stride = 0;
  uint32_t o_stride = 0;
  float l2_eps = 1e-6f;
  bool a_is_neg_exp = false;  // a_log holds A = -exp(A_log) (llama.cpp's GGUF ssm_a)
};

// Workgroup shape: `cols` columns of S per workgroup (clamped to d_v), each split over
// ceil(d_k / rows) invocations holding at most `rows` floats of S in registers.
struct SsmDeltaTuning {
  uint32_t cols = 32;  // 1..1024
  uint32_t rows = 32;  // 1..64
};

// Invocations per workgroup for `shape` under `tuning`: min(cols, d_v) columns of S, each split
// over ceil(d_k / rows) invocations.
uint32_t ssm_delta_workgroup_size(const SsmShape& shape, const SsmDeltaTuning& tuning = {});

// Groups (ceil(d_v / cols), value_heads). Phase SsmDelta; the caller sets layer and token.
// Throws UsageError for a bad shape or tuning, a view that is too small, or o overlapping an
// input.
Op ssm_delta_op(const SsmDeltaProblem& problem, const SsmDeltaTuning& tuning = {});

// The causal conv inside the recurrence (kernels/ssm_conv_delta.comp): the problem's qkv holds
// the conv's input columns (SsmConvProblem::x, at SsmShape's q, k and v offsets), and each
// workgroup computes the conv and SiLU of the channels it reads, as ssm_conv_op's kernel would
// (ssm_conv_silu.glsl), then advances their state. One dispatch where ssm_conv_op and
// ssm_delta_op took two.
struct SsmConvInput {
  TensorView weight;    // [channels][width] f32
  TensorView state;     // [channels][width - 1] f32, oldest first; read and advanced
  TensorView arrivals;  // key_heads uint32 counters, zero before; the kernel leaves them zero
  uint32_t width = 4;   // taps, 2..8
};

// As ssm_delta_op, with bindings 7-9 the conv's weight, state and arrivals. Throws UsageError
// as ssm_delta_op does, and for q/k/v offsets other than the shape's, a width outside 2..8, a
// view that is too small, or o overlapping the conv's views.
Op ssm_conv_delta_op(const SsmDeltaProblem& problem, const SsmConvInput& conv, const SsmDeltaTuning& tuning = {});

}  // namespace pb
