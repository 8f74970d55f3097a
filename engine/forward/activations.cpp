#include "engine/forward/activations.h"

#include <algorithm>

namespace pb {
namespace {

uint64_t columns_bytes(uint32_t width, uint32_t cols) { return uint64_t(column_stride(width)) * cols * 4; }

}  // namespace

uint64_t Activations::bytes_needed(const ModelConfig& c, const ActivationSizes& s) {
  const uint64_t per_col = columns_bytes(c.hidden, 1) * 2 + columns_bytes(c.q_dim(), 1) * 2 +
                           columns_bytes(c.kv_dim(), 1) * 2 + columns_bytes(c.ffn_hidden, 1) * 3 +
                           columns_bytes(c.vocab, 1);
  const uint64_t cache = uint64_t(c.n_layers) * 2 * c.n_kv_heads * s.max_ctx * c.head_dim * 2;
  return per_col * s.max_cols + cache + s.attention_scratch_bytes + uint64_t(s.max_ctx + 1) * 24;
}

Activations::Activations(Device& device, const ModelConfig& c, const ActivationSizes& s)
    : x(device, columns_bytes(c.hidden, s.max_cols), MemoryUse::Device, "x"),
      xn(device, columns_bytes(c.hidden, s.max_cols), MemoryUse::Device, "xn"),
      q(device, columns_bytes(c.q_dim(), s.max_cols), MemoryUse::Device, "q"),
      k(device, columns_bytes(c.kv_dim(), s.max_cols), MemoryUse::Device, "k"),
      v(device, columns_bytes(c.kv_dim(), s.max_cols), MemoryUse::Device, "v"),
      attn(device, columns_bytes(c.q_dim(), s.max_cols), MemoryUse::Device, "attn"),
      gate(device, columns_bytes(c.ffn_hidden, s.max_cols), MemoryUse::Device, "gate"),
      up(device, columns_bytes(c.ffn_hidden, s.max_cols), MemoryUse::Device, "up"),
      act(device, columns_bytes(c.ffn_hidden, s.max_cols), MemoryUse::Device, "act"),
      logits(device, columns_bytes(c.vocab, s.max_cols), MemoryUse::Device, "logits"),
      tokens(device, uint64_t(s.max_ctx + 1) * 4, MemoryUse::Device, "tokens"),
      predicted(device, uint64_t(s.max_ctx + 1) * 4, MemoryUse::Device, "predicted"),
      top2(device, uint64_t(s.max_ctx + 1) * 16, MemoryUse::Device, "top2"),
      scratch(device, std::max<uint64_t>(s.attention_scratch_bytes, 256), MemoryUse::Device,
              "attention scratch"),
      sizes_(s) {
  const uint64_t cache_bytes = uint64_t(c.n_kv_heads) * s.max_ctx * c.head_dim * 2;
  for (uint32_t l = 0; l < c.n_layers; ++l) {
    k_cache.emplace_back(device, cache_bytes, MemoryUse::Device, "k cache " + std::to_string(l));
    v_cache.emplace_back(device, cache_bytes, MemoryUse::Device, "v cache " + std::to_string(l));
  }
}

}  // namespace pb
