// The bytes and FLOPs model of one invocation of each benchmarked kernel: what the GB/s,
// GFLOP/s and roofline counters divide by. Bytes are compulsory traffic (each input read once,
// each output written once); re-reads that a kernel serves from its caches are not counted, so
// the figure is what the kernel achieves against the minimum it must move.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/ops/attention_shape.h"
#include "engine/ops/matmul_cost.h"
#include "engine/ops/ssm_shape.h"
#include "engine/quant/weight_format.h"

namespace pb::bench {

struct KernelCost {
  double bytes = 0;  // bytes read plus bytes written
  double flops = 0;  // multiplies and adds (a fused multiply-add counts two)
};

// DMMV and matmul solve the same projection: weights + x read, y written (matmul_cost.h).
inline KernelCost projection_cost(WeightFormat format, uint64_t rows, uint64_t cols, uint64_t ncols) {
  const MatmulCost c = matmul_cost(format, rows, cols, ncols, false);
  return {c.bytes(), c.flops};
}

// Decode attention of one query token over `keys` cached positions: the K and V rows of every
// kv head (float16) plus q read and o written (float32). Two dot products of head_dim per
// score and value: 4 * heads * keys * head_dim. The split partials are not compulsory.
inline KernelCost attention_decode_cost(const AttentionShape& s, uint64_t keys) {
  const double kv = 2.0 * double(s.n_kv_heads) * double(keys) * s.head_dim * 2.0;
  const double qo = 2.0 * double(s.n_heads) * s.head_dim * 4.0;
  return {kv + qo, 4.0 * double(s.n_heads) * double(keys) * s.head_dim};
}

// Causal prefill attention of `tokens` queries at positions 0 .. tokens - 1: K/V rows read once,
// q and o once; token t sees t + 1 keys, so the scores are tokens * (tokens + 1) / 2 per head.
inline KernelCost attention_prefill_cost(const AttentionShape& s, uint64_t tokens) {
  const double kv = 2.0 * double(s.n_kv_heads) * double(tokens) * s.head_dim * 2.0;
  const double qo = 2.0 * double(s.n_heads) * double(tokens) * s.head_dim * 4.0;
  const double scores = double(tokens) * double(tokens + 1) / 2.0;
  return {kv + qo, 4.0 * double(s.n_heads) * scores * s.head_dim};
}

// RMSNorm of `cols` columns of n floats: x read, y written, the weights read once. Per element
// a square-accumulate (2) and the scale by the norm and the weight (2).
inline KernelCost rmsnorm_cost(uint64_t n, uint64_t cols) {
  return {4.0 * double(n) * (2.0 * double(cols) + 1.0), 4.0 * double(n) * double(cols)};
}

// q/k norm and RoPE in place: every head of q and k read and written, the two norm weight
// vectors read. Per element the norm (4) and the rotation of its pair (3: two multiplies and
// an add); the angles are counted as free, like the exp of the activations below.
inline KernelCost qk_norm_rope_cost(uint64_t q_heads, uint64_t k_heads, uint64_t head_dim, uint64_t cols,
                                    bool qk_norm) {
  const double elements = double(q_heads + k_heads) * double(head_dim) * double(cols);
  const double weights = qk_norm ? 2.0 * 4.0 * double(head_dim) : 0.0;
  return {2.0 * 4.0 * elements + weights, (qk_norm ? 7.0 : 3.0) * elements};
}

// Gated activation: gate and up read, out written; act(gate) * up counted as 5 operations
// (SiLU: a negate, an exp, an add, a divide, the product).
inline KernelCost glu_cost(uint64_t n, uint64_t cols) {
  return {3.0 * 4.0 * double(n) * double(cols), 5.0 * double(n) * double(cols)};
}

// Greedy sampling: every logit read and compared once; a token id and a top-two record written.
inline KernelCost argmax_cost(uint64_t vocab, uint64_t cols) {
  return {4.0 * double(vocab) * double(cols) + 20.0 * double(cols), double(vocab) * double(cols)};
}

// The residual add in place (x += b): x read and written, b read. One add per element.
inline KernelCost add_cost(uint64_t n, uint64_t cols) {
  return {3.0 * 4.0 * double(n) * double(cols), double(n) * double(cols)};
}

// Sigmoid gating in place with a gate per element (y *= sigmoid(g), the attention output
// gate): g read, y read and written. Sigmoid and product counted as 5 operations (a negate, an
// exp, an add, a divide, the product), as glu_cost counts SiLU.
inline KernelCost sigmoid_mul_cost(uint64_t n, uint64_t cols) {
  return {3.0 * 4.0 * double(n) * double(cols), 5.0 * double(n) * double(cols)};
}

// A split matmul's reduction with the gated unit (matmul_split_reduce_glu): the splits' slots of
// gate and up read (2 n values a token each), out written; the adds and the unit (5 operations,
// as glu_cost counts SiLU).
inline KernelCost split_reduce_glu_cost(uint64_t n, uint64_t cols, uint64_t splits) {
  const double elements = double(n) * double(cols);
  return {4.0 * elements * (2.0 * double(splits) + 1.0), elements * (2.0 * double(splits - 1) + 5.0)};
}

// A split matmul's reduction gated by one sigmoid per token and added into the residual
// (matmul_split_reduce_gated): the slots read, y read and written, a gate a token; the adds, the
// sigmoid and product (5, as sigmoid_mul_cost) and the residual add.
inline KernelCost split_reduce_gated_cost(uint64_t rows, uint64_t cols, uint64_t splits) {
  const double elements = double(rows) * double(cols);
  return {4.0 * elements * (double(splits) + 2.0) + 4.0 * double(cols), elements * (double(splits - 1) + 6.0)};
}

// Appending `cols` columns of k and v to a float16 KV cache: k and v read as floats, written as
// halves. The conversion is not counted as arithmetic.
inline KernelCost kv_write_cost(const AttentionShape& s, uint64_t cols) {
  const double elements = 2.0 * double(s.n_kv_heads) * s.head_dim * double(cols);  // k and v
  return {(4.0 + 2.0) * elements, 0.0};
}

// Dequantization operations per weight, the smallest a format allows: none for floats, the
// block scale for Q8_0, a scale and an offset (Q4_K: d * sc * q - dmin * m; Q6_K: d * sc *
// (q - 32)) for the K-quants, their per-block factors counted as free.
inline double dequant_flops(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32:
    case WeightFormat::F16:
      return 0.0;
    case WeightFormat::Q8_0:
      return 1.0;
    default:
      return 2.0;
  }
}

// Token embedding of `cols` tokens: only the rows the token ids select are read (one row of
// `hidden` weights in `format` per column, not the table), the ids read (4 bytes each), x
// written. Per element the dequantization and the embedding scale (1).
inline KernelCost embed_cost(WeightFormat format, uint64_t hidden, uint64_t cols) {
  const double row = double(tensor_bytes(format, 1, hidden));
  const double bytes = double(cols) * (row + 4.0 + 4.0 * double(hidden));
  return {bytes, (dequant_flops(format) + 1.0) * double(hidden) * double(cols)};
}

// The decode embedding that also writes the next RMSNorm's deferred int8 input (embed_norm):
// embed_cost's one column, and the norm's weight read, the int8 form of x * w written (1.25
// bytes per element: a byte and 8 bytes of scales per 32) and the block squares (4 bytes per
// 32). Per element besides: x * w (1), x^2 accumulated (2), the block's absolute maximum (1)
// and the scaling to int8 (1).
inline KernelCost embed_norm_cost(WeightFormat format, uint64_t hidden) {
  KernelCost c = embed_cost(format, hidden, 1);
  c.bytes += double(hidden) * (4.0 + 1.25 + 4.0 / 32.0);
  c.flops += 5.0 * double(hidden);
  return c;
}

// Gated DeltaNet causal conv1d + SiLU over `tokens` columns of the q, k, v channels: x read and
// y written, the taps [channels][K] read, the carried state [channels][K - 1] read and written
// (each once per chunk: it stays in registers across the tokens). Per output a K-tap dot
// product (2K) and SiLU (4: a negate, an exp, an add, a divide).
inline KernelCost ssm_conv_cost(const SsmShape& s, uint64_t tokens) {
  const double outputs = double(s.channels()) * double(tokens);
  const double state = double(s.conv_state_floats());
  const double bytes = 4.0 * (2.0 * outputs + double(s.conv_weight_floats()) + 2.0 * state);
  return {bytes, (2.0 * s.conv_width + 4.0) * outputs};
}

// Gated DeltaNet recurrence over `tokens` columns: the state S [Hv][dk][dv] read once and
// written once per chunk (the kernel keeps it in registers across the tokens); per token the
// conv output's q, k and v (the channels), b and a (Hv each) read and o (Hv * dv) written; A_log
// and dt_bias (Hv each) read. The q and k heads each value head of a group re-reads are served
// by the cache, not counted. FLOPs per token and value head: per element of S the decay (1),
// S^T k (2), the rank-one update (2) and S^T q (2); per element of v the delta (4: a subtract,
// beta and the two k scales) and o's q scale (1). Per token the q and k l2 norms (2 per
// element of each). The per-head gates (sigmoid, softplus, exps) are counted as free.
inline KernelCost ssm_delta_cost(const SsmShape& s, uint64_t tokens) {
  const double t = double(tokens), hv = double(s.value_heads);
  const double state = double(s.delta_state_floats());
  const double per_token = double(s.channels()) + 2.0 * hv + double(s.value_dim());
  const double bytes = 4.0 * (2.0 * state + t * per_token + 2.0 * hv);
  const double flops = t * (7.0 * state + 5.0 * double(s.value_dim()) + 4.0 * double(s.key_dim()));
  return {bytes, flops};
}

// Gated RMSNorm of the DeltaNet output over `tokens` columns: o and z read, y written (Hv * dv
// each), the dv weights read once. Per element a square-accumulate (2), the scale by the norm
// and the weight (2), SiLU of z (4) and the gating product (1).
inline KernelCost ssm_gnorm_cost(const SsmShape& s, uint64_t tokens) {
  const double elements = double(s.value_dim()) * double(tokens);
  return {4.0 * (3.0 * elements + double(s.d_v)), 9.0 * elements};
}

// MoE routing (moe_topk): C tokens' E router logits read, K expert ids and weights written per
// token; per logit the softmax (max, exp, sum, divide: 4) and K selection passes over E (one
// compare each).
inline KernelCost moe_topk_cost(uint32_t experts, uint32_t top_k, uint32_t tokens) {
  return {4.0 * experts * tokens + 8.0 * top_k * tokens, (4.0 + top_k) * experts * tokens};
}

// MoE grouping (moe_group): the C*K expert ids read; the work list (an item of 16 bytes per
// distinct expert, at most min(E, C*K)), the C*K grouped assignments and the counter written;
// one count per assignment.
inline KernelCost moe_group_cost(uint32_t experts, uint32_t top_k, uint32_t tokens) {
  const double assignments = double(top_k) * tokens;
  return {4.0 * assignments + 16.0 * std::min<double>(experts, assignments) + 4.0 * assignments + 4.0,
          assignments};
}

// MoE accumulation (moe_acc): the C*K expert outputs of n floats and their route weights read,
// the C residual columns read and written; a multiply-add per output element.
inline KernelCost moe_acc_cost(uint32_t n, uint32_t top_k, uint32_t tokens) {
  const double assignments = double(top_k) * tokens;
  return {4.0 * (assignments * n + assignments + 2.0 * n * tokens), 2.0 * assignments * n};
}

// Decode's MoE accumulation that also writes the next RMSNorm's deferred int8 input
// (moe_acc_norm): moe_acc_cost's one token, and what embed_norm_cost adds for the norm.
inline KernelCost moe_acc_norm_cost(uint32_t n, uint32_t top_k) {
  KernelCost c = moe_acc_cost(n, top_k, 1);
  c.bytes += double(n) * (4.0 + 1.25 + 4.0 / 32.0);
  c.flops += 5.0 * double(n);
  return c;
}

}  // namespace pb::bench
