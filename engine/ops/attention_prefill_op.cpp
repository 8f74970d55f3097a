#include "engine/ops/attention_prefill_op.h"

#include <string>

#include "engine/ops/attention_tile.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {

std::vector<Op> attention_prefill_ops(const AttentionPrefillProblem& p, const BindingLimits& limits,
                                      const AttentionPrefillTuning& tuning) {
  const AttentionShape& s = p.shape;
  check_attention_shape("attention prefill", s, p.cache);
  const uint32_t width = s.n_heads * s.head_dim;
  if (p.n_tokens == 0 || uint64_t(p.pos0) + p.n_tokens > s.max_ctx) {
    throw UsageError("attention prefill: need 0 < n_tokens and pos0 + n_tokens <= max_ctx");
  }
  if (p.q_stride < width || p.o_stride < width) {
    throw UsageError("attention prefill: q_stride and o_stride must be >= n_heads * head_dim");
  }
  if (s.cache_bytes() > limits.max_range) {
    throw UsageError("attention prefill: one layer's K cache exceeds maxStorageBufferRange");
  }
  const uint64_t q_bytes = (uint64_t(p.n_tokens - 1) * p.q_stride + width) * 4;
  const uint64_t o_bytes = (uint64_t(p.n_tokens - 1) * p.o_stride + width) * 4;
  if (p.q.buffer == nullptr || p.q.bytes < q_bytes || p.o.buffer == nullptr || p.o.bytes < o_bytes) {
    throw UsageError("attention prefill: q or o view is smaller than n_tokens rows of its stride");
  }

  const AttentionTile tile =
      prefill_tile(s.gqa_ratio(), s.head_dim, tuning.threads, tuning.rows, tuning.shared_bytes);
  if (ceil_div(p.n_tokens, tile.tokens) > 65535) {
    throw UsageError("attention prefill: the chunk needs more than 65535 workgroups in y; cut it");
  }
  const AlignedWindow q = aligned_window(p.q, 0, q_bytes, limits);
  const AlignedWindow o = aligned_window(p.o, 0, o_bytes, limits);
  Op op;
  op.kernel = &kernel("attn_prefill");
  op.spec = attention_spec(tile, s.head_dim);
  op.bindings = {q.view.read(), p.cache.k.slice(0, s.cache_bytes()).read(),
                 p.cache.v.slice(0, s.cache_bytes()).read(), o.view.write()};
  op.push = PushConstants::of(AttnPrefillPush{s.n_heads, s.n_kv_heads, s.max_ctx, p.pos0, p.n_tokens,
                                              s.window, s.scale, p.q_stride, p.o_stride, q.first_float,
                                              o.first_float});
  op.groups = {s.n_heads / tile.heads, ceil_div(p.n_tokens, tile.tokens), 1};
  op.phase = Phase::FlashAttn;
  op.token = static_cast<int32_t>(p.pos0);
  op.label = "attn_prefill";
  return {op};
}

}  // namespace pb
