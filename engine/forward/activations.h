// The device buffers a forward pass works in: activation columns, the KV cache, the token
// buffer the sampler writes back into, and the fingerprint outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/ops/tensor_view.h"
#include "harness/buffer.h"

namespace pb {

class Device;

// Column strides are padded to 64 floats (256 bytes), so every column view starts at an
// offset every Vulkan device accepts for a storage-buffer binding.
inline uint32_t column_stride(uint32_t width) { return (width + 63) / 64 * 64; }

struct ActivationSizes {
  uint32_t max_cols = 1;  // activation columns of the widest chunk
  uint32_t max_ctx = 1;   // positions: prompt plus decode
  uint64_t attention_scratch_bytes = 0;
};

class Activations {
 public:
  Activations(Device& device, const ModelConfig& config, const ActivationSizes& sizes);
  static uint64_t bytes_needed(const ModelConfig& config, const ActivationSizes& sizes);

  const ActivationSizes& sizes() const { return sizes_; }

  // Each [max_cols][stride] float32, column c at c * stride.
  Buffer x, xn, q, k, v, attn, gate, up, act, logits;
  Buffer tokens;     // uint32 [max_ctx + 1]: the prompt, then each sampled token
  Buffer predicted;  // uint32 [max_ctx + 1]: samples of prompt positions (dead work), unread
  Buffer top2;       // uvec4 [max_ctx + 1]: by position, index/max/second index/second max
  Buffer scratch;    // attention split partials
  std::vector<Buffer> k_cache, v_cache;  // per layer, [n_kv_heads][max_ctx][head_dim] float16

 private:
  ActivationSizes sizes_;
};

}  // namespace pb
