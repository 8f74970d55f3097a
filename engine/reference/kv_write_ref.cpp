#include "engine/reference/kv_write_ref.h"

#include "engine/quant/f16.h"

namespace pb::ref {

void kv_write(std::span<const float> k, std::span<const float> v, uint32_t n_kv_heads,
              uint32_t head_dim, uint32_t max_ctx, uint32_t pos0, uint32_t ncols,
              uint32_t k_stride, uint32_t v_stride, std::span<uint16_t> k_cache,
              std::span<uint16_t> v_cache) {
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t h = 0; h < n_kv_heads; ++h) {
      const size_t row = (size_t(h) * max_ctx + pos0 + c) * head_dim;
      for (uint32_t d = 0; d < head_dim; ++d) {
        k_cache[row + d] = float_to_half_bits(k[size_t(c) * k_stride + h * head_dim + d]);
        v_cache[row + d] = float_to_half_bits(v[size_t(c) * v_stride + h * head_dim + d]);
      }
    }
  }
}

}  // namespace pb::ref
