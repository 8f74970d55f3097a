#include "engine/ops/attention_decode_op.h"

#include <algorithm>
#include <string>

#include "engine/ops/attention_tile.h"
#include "engine/ops/rope_kv_write_op.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require_bytes(const TensorView& view, uint64_t bytes, const char* name) {
  if (view.buffer == nullptr || view.bytes < bytes) {
    throw UsageError(std::string("attention decode: ") + name + " needs " + std::to_string(bytes) +
                     " bytes");
  }
}

uint64_t partial_floats(uint32_t n_splits, uint32_t n_heads, uint32_t head_dim) {
  return uint64_t(n_splits) * n_heads * (head_dim + 2);
}

// The workgroups the split aims at: rope_max_workgroups where the RoPE runs inside and the
// context is at most rope_max_keys (so it stays inside), else target_workgroups (0: none).
uint32_t workgroup_target(uint32_t visible, const AttentionDecodeTuning& tuning, bool rope) {
  const bool keep_rope_in = rope && visible <= tuning.rope_max_keys && tuning.target_workgroups != 0;
  return keep_rope_in ? std::min(tuning.target_workgroups, tuning.rope_max_workgroups) : tuning.target_workgroups;
}

// Key positions per split for a query that sees `visible` keys, `heads` q heads per workgroup:
// all of them up to tuning.one_split_max, else tuning.split doubled toward workgroup_target.
uint32_t split_for(const AttentionShape& s, uint32_t visible, uint32_t heads, const AttentionDecodeTuning& tuning,
                   bool rope) {
  if (visible <= tuning.one_split_max) return std::max(tuning.split, visible);
  const uint64_t groups_x = s.n_heads / heads;
  const uint32_t target = workgroup_target(visible, tuning, rope);
  uint32_t split = tuning.split;
  while (target != 0 && split * 2 <= tuning.max_split && groups_x * ceil_div(visible, split) > target) {
    split *= 2;
  }
  return split;
}

// The tile of attn_decode, or of attn_decode_rope from the budget its prologue leaves (sized
// for a whole GQA group, the most heads a tile can take). Its heads: tuning.heads when set,
// else the most that fit while the dispatch keeps tuning.min_workgroups workgroups, else one.
AttentionTile tile_for(const AttentionShape& s, uint32_t pos, const AttentionDecodeTuning& tuning, bool rope) {
  const uint64_t extra = rope ? attention_rope_shared_bytes(s.gqa_ratio(), s.head_dim) : 0;
  if (extra >= tuning.shared_bytes) {
    throw UsageError("attention decode: the RoPE prologue alone needs " + std::to_string(extra) +
                     " bytes of shared memory; the budget is " + std::to_string(tuning.shared_bytes));
  }
  const uint64_t budget = tuning.shared_bytes - extra;
  AttentionTile tile = decode_tile(s.gqa_ratio(), s.head_dim, tuning.threads, budget, tuning.heads, tuning.keys);
  if (tuning.heads != 0) return tile;
  const uint32_t visible = attention_visible_keys(pos, s.window);
  while (tile.heads > 1) {
    const uint64_t workgroups =
        uint64_t(s.n_heads / tile.heads) * ceil_div(visible, split_for(s, visible, tile.heads, tuning, rope));
    if (workgroups >= tuning.min_workgroups) break;
    tile = decode_tile(s.gqa_ratio(), s.head_dim, tuning.threads, budget, tile.heads - 1, tuning.keys);
  }
  return tile;
}

void require_same(uint64_t rope, uint64_t attention, const char* field) {
  if (rope != attention) {
    throw UsageError(std::string("attention decode with RoPE: the RoPE's ") + field + " (" + std::to_string(rope) +
                     ") differs from the attention's (" + std::to_string(attention) +
                     "); the prologue rotates the query token's own q and k");
  }
}

// The rope problem is the query token's: its q, its position, the attention's heads.
void check_rope(const AttentionDecodeProblem& p) {
  const AttentionShape& s = p.shape;
  const QkNormRopeProblem& qk = p.rope->qk;
  require_same(qk.ncols, 1, "ncols");
  require_same(qk.pos0, p.pos, "position");
  require_same(qk.n_q_heads, s.n_heads, "n_q_heads");
  require_same(qk.n_k_heads, s.n_kv_heads, "n_k_heads");
  require_same(qk.head_dim, s.head_dim, "head_dim");
  if (qk.q.buffer != p.q.buffer || qk.q.offset != p.q.offset) {
    throw UsageError("attention decode with RoPE: the RoPE's q is not the attention's q; the prologue rotates the "
                     "q the attention reads");
  }
  if (s.head_dim % 8 != 0) {
    throw UsageError("attention decode with RoPE: head_dim must be a multiple of 8 (the cache row is packed 8 "
                     "halves a word); got " + std::to_string(s.head_dim));
  }
  const uint64_t kv_bytes = uint64_t(s.n_kv_heads) * s.head_dim * 4;
  require_bytes(qk.k, kv_bytes, "the token's k");
  require_bytes(p.rope->v, kv_bytes, "the token's v");
}

// What attn_decode_rope adds to `decode`: the prologue's bindings, push constants and spec.
void add_rope_prologue(Op& decode, const AttentionDecodeProblem& p, const AttnDecodePush& attn,
                       const BindingLimits& limits) {
  const AttentionShape& s = p.shape;
  const QkNormRopeProblem& qk = p.rope->qk;
  // qk_norm_rope_op's own checks (head_dim, rope_dims, views) and norm bindings.
  const Op rope = qk_norm_rope_op(qk);
  const uint64_t kv_bytes = uint64_t(s.n_kv_heads) * s.head_dim * 4;
  const AlignedWindow k = aligned_window(qk.k, 0, kv_bytes, limits);
  const AlignedWindow v = aligned_window(p.rope->v, 0, kv_bytes, limits);
  decode.kernel = &kernel("attn_decode_rope");
  decode.bindings.push_back(k.view.read());
  decode.bindings.push_back(v.view.read());
  decode.bindings.push_back(rope.bindings[2]);  // q_norm, k_norm (or 16 bytes never read)
  decode.bindings.push_back(rope.bindings[3]);
  // The caches once more, written (row pos): the reads above stay readonly.
  decode.bindings.push_back(p.cache.k.slice(0, s.cache_bytes()).write());
  decode.bindings.push_back(p.cache.v.slice(0, s.cache_bytes()).write());
  decode.spec.set(7, qk.qk_norm ? 1 : 0).set(8, qk.add_one ? 1 : 0).set(9, static_cast<int32_t>(qk.style));
  const QkNormRopePush angles = qk_norm_rope_push(qk);
  decode.push = PushConstants::of(AttnDecodeRopePush{attn, qk.rope_dims, angles.freq_ratio_hi, angles.freq_ratio_lo,
                                                     qk.eps, k.first_float, v.first_float});
  decode.label = "attn_decode_rope";
}

// The RoPE and KV write as their own dispatch in front of attn_decode (see rope_max_workgroups).
std::vector<Op> rope_then_attention(const AttentionDecodeProblem& p, const BindingLimits& limits,
                                    const AttentionDecodeTuning& tuning) {
  const QkNormRopeProblem& qk = p.rope->qk;
  // One column (check_rope), so the strides never step: v's is k's.
  const KvWriteProblem kv{qk.k, p.rope->v, p.cache.k, p.cache.v, qk.n_k_heads, qk.head_dim, p.shape.max_ctx,
                          qk.pos0, qk.ncols, qk.k_stride, qk.k_stride};
  std::vector<Op> ops{rope_kv_write_op(qk, kv)};
  ops.back().phase = Phase::AttnRope;
  ops.back().token = static_cast<int32_t>(p.pos);
  AttentionDecodeProblem rotated = p;
  rotated.rope.reset();
  for (Op& op : attention_decode_ops(rotated, limits, tuning)) ops.push_back(std::move(op));
  return ops;
}

}  // namespace

uint64_t attention_rope_shared_bytes(uint32_t heads, uint32_t head_dim) {
  const uint64_t d = head_dim;
  return (heads + 1) * (d / 2) * 4  // rp_slots
         + (d / 2) * 8              // rp_cos_sin
         + d * 4                    // rp_k
         + 2 * d * 2;               // own_k_s, own_v_s
}

uint32_t attention_visible_keys(uint32_t pos, uint32_t window) {
  return window == 0 ? pos + 1 : std::min(pos + 1, window);
}

uint32_t attention_decode_split(const AttentionShape& s, uint32_t pos, const AttentionDecodeTuning& tuning,
                                bool rope) {
  return split_for(s, attention_visible_keys(pos, s.window), tile_for(s, pos, tuning, rope).heads, tuning, rope);
}

uint64_t attention_decode_scratch_bytes(uint32_t n_heads, uint32_t head_dim, uint32_t max_ctx,
                                        uint32_t split) {
  const uint32_t splits = ceil_div(max_ctx, split);
  return splits <= 1 ? 0 : partial_floats(splits, n_heads, head_dim) * 4;
}

std::vector<Op> attention_decode_ops(const AttentionDecodeProblem& p, const BindingLimits& limits,
                                     const AttentionDecodeTuning& tuning) {
  const AttentionShape& s = p.shape;
  check_attention_shape("attention decode", s, p.cache);
  if (p.pos >= s.max_ctx) throw UsageError("attention decode: pos must be below max_ctx");
  const uint32_t mt = tuning.merge_threads;
  if (tuning.split == 0 || mt < kAttnMergeCols || (mt & (mt - 1)) != 0) {
    throw UsageError("attention decode: split must be positive, merge_threads a power of two >= 8");
  }
  if (s.cache_bytes() > limits.max_range) {
    throw UsageError("attention decode: one layer's K cache exceeds maxStorageBufferRange");
  }
  const uint64_t head_floats = uint64_t(s.n_heads) * s.head_dim;
  require_bytes(p.q, head_floats * 4, "q");
  require_bytes(p.o, head_floats * 4, "o");
  const bool rope = p.rope.has_value();
  if (rope) check_rope(p);
  const AttentionTile tile = tile_for(s, p.pos, tuning, rope);
  const uint32_t visible = attention_visible_keys(p.pos, s.window);
  const uint32_t split = split_for(s, visible, tile.heads, tuning, rope);
  const uint32_t n_splits = ceil_div(visible, split);
  if (rope && uint64_t(s.n_heads / tile.heads) * n_splits > tuning.rope_max_workgroups) {
    return rope_then_attention(p, limits, tuning);
  }
  const bool partial = n_splits > 1;
  if (partial) {
    require_bytes(p.scratch, partial_floats(n_splits, s.n_heads, s.head_dim) * 4, "scratch");
    if (p.scratch.offset % 16 != 0) {
      throw UsageError("attention decode: the scratch view must start 16-byte aligned");
    }
  }

  const AlignedWindow q = aligned_window(p.q, 0, head_floats * 4, limits);
  const AlignedWindow o = aligned_window(p.o, 0, head_floats * 4, limits);
  const AlignedWindow scratch =
      partial ? aligned_window(p.scratch, 0, partial_floats(n_splits, s.n_heads, s.head_dim) * 4, limits)
              : AlignedWindow{};
  const AlignedWindow& out = partial ? scratch : o;

  Op decode;
  decode.kernel = &kernel("attn_decode");
  decode.spec = attention_spec(tile, s.head_dim);
  decode.spec.set(6, partial ? 1 : 0);
  decode.bindings = {q.view.read(), p.cache.k.slice(0, s.cache_bytes()).read(),
                     p.cache.v.slice(0, s.cache_bytes()).read(), out.view.write()};
  const AttnDecodePush push{s.n_heads, s.n_kv_heads, s.max_ctx, p.pos,           s.window,
                            split,     n_splits,     s.scale,   q.first_float, out.first_float};
  decode.push = PushConstants::of(push);
  decode.groups = {s.n_heads / tile.heads, n_splits, 1};
  decode.phase = Phase::FlashAttn;
  decode.token = static_cast<int32_t>(p.pos);
  decode.label = "attn_decode";
  if (rope) add_rope_prologue(decode, p, push, limits);
  if (!partial) return {decode};

  Op merge;
  merge.kernel = &kernel("attn_merge");
  merge.spec.set(0, static_cast<int32_t>(s.head_dim))
      .set(1, static_cast<int32_t>(tuning.merge_threads))
      .set(2, static_cast<int32_t>(kAttnMergeCols));
  merge.bindings = {scratch.view.read(), o.view.write()};
  // The scratch view starts 16-byte aligned, so its window's first float is a whole vec4.
  merge.push = PushConstants::of(AttnMergePush{s.n_heads, n_splits, scratch.first_float / 4, o.first_float});
  merge.groups = {s.n_heads, s.head_dim / 4 / kAttnMergeCols, 1};
  merge.phase = Phase::FlashAttn;
  merge.token = decode.token;
  merge.label = "attn_merge";
  return {decode, merge};
}

}  // namespace pb
