#include "engine/ops/attention_decode_op.h"

#include <algorithm>
#include <string>

#include "engine/ops/attention_tile.h"
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

}  // namespace

uint32_t attention_visible_keys(uint32_t pos, uint32_t window) {
  return window == 0 ? pos + 1 : std::min(pos + 1, window);
}

uint32_t attention_decode_split(const AttentionShape& s, uint32_t pos, const AttentionDecodeTuning& tuning) {
  const uint32_t visible = attention_visible_keys(pos, s.window);
  const uint32_t heads = decode_tile(s.gqa_ratio(), s.head_dim, tuning.threads, tuning.shared_bytes).heads;
  const uint64_t groups_x = s.n_heads / heads;
  uint32_t split = tuning.split;
  while (tuning.target_workgroups != 0 && split * 2 <= tuning.max_split &&
         groups_x * ceil_div(visible, split) > tuning.target_workgroups) {
    split *= 2;
  }
  return split;
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
  const uint32_t split = attention_decode_split(s, p.pos, tuning);
  const uint32_t n_splits = ceil_div(attention_visible_keys(p.pos, s.window), split);
  const bool partial = n_splits > 1;
  if (partial) {
    require_bytes(p.scratch, partial_floats(n_splits, s.n_heads, s.head_dim) * 4, "scratch");
    if (p.scratch.offset % 16 != 0) {
      throw UsageError("attention decode: the scratch view must start 16-byte aligned");
    }
  }

  const AttentionTile tile = decode_tile(s.gqa_ratio(), s.head_dim, tuning.threads, tuning.shared_bytes);
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
  decode.push = PushConstants::of(AttnDecodePush{s.n_heads, s.n_kv_heads, s.max_ctx, p.pos, s.window,
                                                 split, n_splits, s.scale, q.first_float,
                                                 out.first_float});
  decode.groups = {s.n_heads / tile.heads, n_splits, 1};
  decode.phase = Phase::FlashAttn;
  decode.token = static_cast<int32_t>(p.pos);
  decode.label = "attn_decode";
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
