// Op builder for decode attention (kernels/attn_decode.comp, kernels/attn_merge.comp): one
// query token against its visible cache positions, split over the context so long contexts
// keep the GPU busy.
//
// The visible keys (pos + 1, or the window) are cut into splits. One split: a single
// attn_decode op writes o. More: attn_decode writes per-split partials to the scratch buffer
// and attn_merge combines them into o. Scratch layout, in floats from the scratch view's start
// (a multiple of 16 bytes), for n_splits splits:
//   [s][h][head_dim]        unnormalized output of split s, head h
//   then [s][h][2]          (max in log2 units of the prescaled scores, sum of exp2(score - max))
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ops/attention_shape.h"
#include "engine/ops/attention_tile.h"
#include "engine/ops/binding_limits.h"
#include "engine/ops/qk_norm_rope_op.h"
#include "harness/op.h"

namespace pb {

// vec4 columns per attn_merge workgroup: 32 dims, so a 128-dim head takes 4 workgroups (a
// divisor of every supported head_dim / 4), and one workgroup writes one int8 block of the
// output (attn_merge_quantize.comp relies on it).
inline constexpr uint32_t kAttnMergeCols = 8;

// The query token's own q/k norm, RoPE and KV write, done by the attention dispatch itself
// (attn_decode_rope) instead of a qk_norm_rope_kv dispatch before it: one dispatch and one
// barrier fewer per attention layer of a decode step. `qk` is what qk_norm_rope_op would be
// given for the token: qk.q is the problem's q as projected (not yet rotated), qk.k the
// token's projected k, one column at pos0 = the problem's pos.
struct AttentionDecodeRope {
  QkNormRopeProblem qk;
  TensorView v;  // the token's projected v, n_kv_heads * head_dim floats
};

struct AttentionDecodeProblem {
  AttentionShape shape;
  KvCacheView cache;   // the layer's cache; row `pos` already written (unless `rope`)
  TensorView q;        // [n_heads][head_dim] float32
  TensorView o;        // [n_heads][head_dim] float32
  TensorView scratch;  // attention_decode_scratch_bytes(...) bytes; read only with > 1 split
  uint32_t pos = 0;    // the query's position (< max_ctx); context length pos + 1
  std::optional<AttentionDecodeRope> rope;  // set: q is unrotated and row `pos` is written here
};

struct AttentionDecodeTuning {
  // The smallest split, key positions; scratch is sized by it. On an H200 (h32kv8d128,
  // attn_decode_rope) 32 took 9.8 / 10.4 / 11.6 / 13.8 us at 256 / 512 / 1024 / 2048 keys against
  // 10.8 / 11.3 / 12.5 / 14.8 for 64.
  uint32_t split = 32;
  // Contexts of up to this many keys run as one split, with no merge: on an H200
  // (h32kv8d128, one head per workgroup) 128 keys took 8.0 us as one split against 10.0 as two
  // and the merge, while 192 keys took 11.4 as one against 10.5 as three. 0: `split` decides.
  uint32_t one_split_max = 128;
  // Splits double (up to max_split) while attn_decode would run more workgroups than this:
  // enough to keep every SM busy, few enough that the merge stays cheap (1024, about 8 per SM,
  // was best on an H200 from 512 to 131072 positions; rope_max_keys says where the RoPE inside
  // lowers it). 0 keeps `split` fixed.
  uint32_t target_workgroups = 1024;
  uint32_t max_split = 1024;
  uint32_t threads = 128;                         // attn_decode workgroup size, a power of two
  // Q heads per workgroup. 0: the most of a GQA group that fit the shared memory while the
  // dispatch keeps min_workgroups workgroups, else one. A short context is one dispatch's
  // latency, not its reads: on an H200 (h32kv8d128, attn_decode_rope) one head per workgroup took
  // 5.67 us against 6.93 for the whole group at 64 keys (32 workgroups against 8), and 11.3
  // against 12.7 at 512 (256 against 64); from 4096 keys on, whole groups are faster.
  uint32_t heads = 0;
  uint32_t min_workgroups = 256;
  uint32_t keys = 0;  // at most this many key positions per tile (0: the largest that fits)
  uint64_t shared_bytes = kAttentionSharedBudget; // the device's shared memory a tile may use
  uint32_t merge_threads = 128;  // attn_merge workgroup size, a power of two >= 8
  // attn_decode_rope only up to this many attention workgroups; past it the RoPE runs as its
  // own dispatch (qk_norm_rope_kv) before attn_decode. Every workgroup's prologue adds its
  // latency: on an H200 (h32kv8d128) attn_decode_rope took 13.2 us against 10.4 + 3.9 for the
  // pair at 512 keys (64 workgroups) and 18.0 against 15.9 + 3.9 at 4096 (512), but 68.2
  // against 58.4 + 3.9 at 32768 (1024 workgroups).
  uint32_t rope_max_workgroups = 512;
  // With the RoPE inside, contexts of up to this many keys aim the split at rope_max_workgroups
  // instead of target_workgroups, so they keep the RoPE in: on an H200 (h32kv8d128, split 32)
  // 8192 keys took 24.4 us in 512 workgroups against 28.3 for 1024 and the separate RoPE, while
  // 32768 took 65.5 against 62.9. 0: target_workgroups everywhere.
  uint32_t rope_max_keys = 8192;
};

struct AttnDecodePush {
  uint32_t n_heads;     // query heads
  uint32_t n_kv_heads;  // kv heads
  uint32_t max_ctx;     // cache positions per kv head
  uint32_t pos;         // the query's position
  uint32_t window;      // sliding window in positions, 0 = none
  uint32_t split;       // key positions per split
  uint32_t n_splits;    // splits (workgroups in y)
  float scale;          // score scale
  uint32_t q_offset;    // floats from the q binding's start to head 0
  uint32_t o_offset;    // floats from the output binding's start (o or scratch)
};

// attn_decode_rope's push constants: attn_decode's, then the prologue's.
struct AttnDecodeRopePush {
  AttnDecodePush attn;
  uint32_t rope_dims;   // leading dimensions rotated (0: none)
  float freq_ratio_hi;  // theta^(-2 / rope_dims) as float hi + lo (qk_norm_rope_push)
  float freq_ratio_lo;
  float eps;            // added to the mean square of a head
  uint32_t k_offset;    // floats from the k binding's start to the token's kv head 0
  uint32_t v_offset;    // floats from the v binding's start to the token's kv head 0
};

// Shared memory attn_decode_rope adds to the attention tile's (attn_rope_prologue.glsl) for a
// workgroup of `heads` q heads; the decode tile is chosen from what is left of the budget.
uint64_t attention_rope_shared_bytes(uint32_t heads, uint32_t head_dim);

struct AttnMergePush {
  uint32_t n_heads;         // query heads
  uint32_t n_splits;        // splits attn_decode wrote
  uint32_t scratch_offset;  // vec4 (16 bytes) from the scratch binding's start to split 0
  uint32_t o_offset;        // floats from the o binding's start to head 0
};

// Keys the query at `pos` sees: pos + 1, or at most `window` of them.
uint32_t attention_visible_keys(uint32_t pos, uint32_t window);

// The split attention_decode_ops uses for a query at `pos`: tuning.split, doubled toward
// tuning.target_workgroups (`rope`: for attn_decode_rope, whose tile may hold fewer heads).
uint32_t attention_decode_split(const AttentionShape& shape, uint32_t pos,
                                const AttentionDecodeTuning& tuning, bool rope = false);

// Scratch bytes the longest context (max_ctx keys) needs at the smallest split (tuning.split);
// 0 when that fits one split.
uint64_t attention_decode_scratch_bytes(uint32_t n_heads, uint32_t head_dim, uint32_t max_ctx,
                                        uint32_t split);

// 1 op (attn_decode, or attn_decode_rope with `rope`) when the visible keys fit one split,
// else 2 (then attn_merge). Phase FlashAttn, token pos; the caller sets the layer. With `rope`
// past tuning.rope_max_workgroups, qk_norm_rope_kv (phase AttnRope) comes first and the
// attention is attn_decode's. Throws UsageError for a rope problem that is not the token's
// (see AttentionDecodeRope).
std::vector<Op> attention_decode_ops(const AttentionDecodeProblem& problem, const BindingLimits& limits,
                                     const AttentionDecodeTuning& tuning = {});

}  // namespace pb
