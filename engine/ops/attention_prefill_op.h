// Op builder for prefill attention (kernels/attn_prefill.comp): a chunk of C query tokens at
// positions pos0 .. pos0 + C - 1, each attending causally (and within the window) to the
// cache, which already holds the chunk's own K/V rows.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/attention_shape.h"
#include "engine/ops/attention_tile.h"
#include "engine/ops/binding_limits.h"
#include "harness/op.h"

namespace pb {

struct AttentionPrefillProblem {
  AttentionShape shape;
  KvCacheView cache;      // the layer's cache; rows up to pos0 + n_tokens - 1 written
  TensorView q;           // [n_tokens][q_stride] float32, head h at h * head_dim
  TensorView o;           // [n_tokens][o_stride] float32
  uint32_t pos0 = 0;      // position of the chunk's first token
  uint32_t n_tokens = 0;  // C; pos0 + C <= max_ctx
  uint32_t q_stride = 0;  // floats between tokens (>= n_heads * head_dim)
  uint32_t o_stride = 0;  // floats between tokens (>= n_heads * head_dim)
};

struct AttentionPrefillTuning {
  uint32_t rows = 16;      // query rows (q heads x tokens) per workgroup, before shared-memory limits
  uint32_t threads = 128;  // workgroup size, a power of two
  uint64_t shared_bytes = kAttentionSharedBudget;  // the device's shared memory a tile may use
};

struct AttnPrefillPush {
  uint32_t n_heads;     // query heads
  uint32_t n_kv_heads;  // kv heads
  uint32_t max_ctx;     // cache positions per kv head
  uint32_t pos0;        // position of the chunk's first token
  uint32_t n_tokens;    // tokens in the chunk
  uint32_t window;      // sliding window in positions, 0 = none
  float scale;          // score scale
  uint32_t q_stride;    // floats between q tokens
  uint32_t o_stride;    // floats between o tokens
  uint32_t q_offset;    // floats from the q binding's start to token 0
  uint32_t o_offset;    // floats from the o binding's start to token 0
};

// One attn_prefill op; phase FlashAttn, token pos0; the caller sets the layer.
std::vector<Op> attention_prefill_ops(const AttentionPrefillProblem& problem, const BindingLimits& limits,
                                      const AttentionPrefillTuning& tuning = {});

}  // namespace pb
