// The shape of one attention layer as the attention kernels see it, and the checks every
// attention op builder applies to it.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"

namespace pb {

struct AttentionShape {
  uint32_t n_heads = 0;     // query heads
  uint32_t n_kv_heads = 0;  // key/value heads; divides n_heads (GQA ratio n_heads / n_kv_heads)
  uint32_t head_dim = 0;    // 64, 128, 256 or 512
  uint32_t max_ctx = 0;     // cache positions per kv head
  uint32_t window = 0;      // sliding window in positions (sees [p - window + 1, p]); 0 = none
  float scale = 0;          // score scale, usually 1 / sqrt(head_dim)

  uint32_t gqa_ratio() const { return n_heads / n_kv_heads; }
  // Bytes of one layer's K (or V) cache: [n_kv_heads][max_ctx][head_dim] float16.
  uint64_t cache_bytes() const { return uint64_t(n_kv_heads) * max_ctx * head_dim * 2; }
};

// One layer's KV cache. Position p of kv head g is at element ((g * max_ctx) + p) * head_dim.
struct KvCacheView {
  TensorView k;  // float16, offset a multiple of 16 bytes (read as 8-half words)
  TensorView v;  // float16, same layout
};

// Throws UsageError naming `op` for an unsupported head dim, heads that do not divide, or
// cache views that are too small or misaligned.
void check_attention_shape(const char* op, const AttentionShape& shape, const KvCacheView& cache);

}  // namespace pb
