// CPU reference of the attention kernels (attn_decode + attn_merge, attn_prefill): scores,
// softmax and the weighted sum in float64 over K/V given as the float16 bits the cache holds,
// so the only difference from the GPU is the GPU's float32 arithmetic.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

struct AttentionDims {
  uint32_t n_heads = 0;     // query heads
  uint32_t n_kv_heads = 0;  // kv heads; q head h reads kv head h / (n_heads / n_kv_heads)
  uint32_t head_dim = 0;
  uint32_t max_ctx = 0;     // cache positions per kv head
  uint32_t window = 0;      // sliding window in positions, 0 = none
  float scale = 0;          // score scale
};

// For tokens t < n_tokens at positions pos0 + t: o[t * o_stride + h * head_dim + d] =
// softmax_j(scale * q_h . k_j) . v_j over j in [max(0, p - window + 1), p] (window 0: [0, p]).
// k, v: [n_kv_heads][max_ctx][head_dim] float16 bits; q: token t at t * q_stride.
void attention(const AttentionDims& dims, std::span<const float> q, uint32_t q_stride,
               std::span<const uint16_t> k, std::span<const uint16_t> v, uint32_t pos0,
               uint32_t n_tokens, std::span<float> o, uint32_t o_stride);

}  // namespace pb::ref
