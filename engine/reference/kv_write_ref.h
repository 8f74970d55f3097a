// CPU reference of the KV-cache append: float16 by round-to-nearest-even (pb::float_to_half_bits).
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

// cache[(kvh * max_ctx + pos0 + c) * head_dim + d] = f16 bits of src[c * stride + kvh *
// head_dim + d], for k into k_cache and v into v_cache; other rows are left alone.
void kv_write(std::span<const float> k, std::span<const float> v, uint32_t n_kv_heads,
              uint32_t head_dim, uint32_t max_ctx, uint32_t pos0, uint32_t ncols,
              uint32_t k_stride, uint32_t v_stride, std::span<uint16_t> k_cache,
              std::span<uint16_t> v_cache);

}  // namespace pb::ref
