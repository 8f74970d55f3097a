// The bytes and FLOPs model of one invocation of each benchmarked kernel: what the GB/s,
// GFLOP/s and roofline counters divide by. Bytes are compulsory traffic (each input read once,
// each output written once); re-reads that a kernel serves from its caches are not counted, so
// the figure is what the kernel achieves against the minimum it must move.
#pragma once

#include <cstdint>

#include "engine/ops/attention_shape.h"
#include "engine/ops/matmul_cost.h"

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

}  // namespace pb::bench
