// The shape of one Gated DeltaNet (Qwen3.5 / Qwen3-Next linear attention) layer as the SSM
// kernels see it (ssm_conv, ssm_delta, ssm_gnorm), the layouts of its per-layer state, and
// the check every SSM op builder applies to it.
//
// Conv channels are q (key_dim), k (key_dim), v (value_dim) concatenated, in that order, as
// the fused qkv projection writes them. Value head h reads key head h / group().
#pragma once

#include <cstdint>

namespace pb {

struct SsmShape {
  uint32_t key_heads = 0;    // Hk: q and k heads (16 in qwen35-35b-a3b)
  uint32_t value_heads = 0;  // Hv: v, z, o heads, a multiple of key_heads (32)
  uint32_t d_k = 0;          // head_k_dim (d_state): rows of S, 1..256 (128)
  uint32_t d_v = 0;          // head_v_dim: columns of S (128)
  uint32_t conv_width = 4;   // K: taps of the causal conv, 2..8

  uint32_t key_dim() const { return key_heads * d_k; }      // q (or k) floats per token
  uint32_t value_dim() const { return value_heads * d_v; }  // v, z and o floats per token
  uint32_t channels() const { return 2 * key_dim() + value_dim(); }  // conv channels
  uint32_t group() const { return value_heads / key_heads; }  // value heads per key head

  // Floats from the start of a conv column to its q, k and v parts.
  uint32_t q_offset() const { return 0; }
  uint32_t k_offset() const { return key_dim(); }
  uint32_t v_offset() const { return 2 * key_dim(); }

  // Conv state: [channels][conv_width - 1] f32, oldest input first.
  uint64_t conv_state_floats() const { return uint64_t(channels()) * (conv_width - 1); }
  // Conv weights: [channels][conv_width] f32 (llama.cpp's ssm_conv1d, taps innermost).
  uint64_t conv_weight_floats() const { return uint64_t(channels()) * conv_width; }
  // Recurrent state: [value_heads][d_k][d_v] f32; S[h][i][j] at (h * d_k + i) * d_v + j.
  uint64_t delta_state_floats() const { return uint64_t(value_heads) * d_k * d_v; }
};

inline constexpr uint32_t kSsmMaxKeyDim = 256;    // ssm_delta: k and q of a head in shared memory
inline constexpr uint32_t kSsmMaxConvWidth = 8;   // ssm_conv: taps held in registers

// Throws UsageError naming `op` for zero heads, value heads that are not a multiple of key
// heads, d_k outside 1..256, d_v of 0 or a conv width outside 2..8.
void check_ssm_shape(const char* op, const SsmShape& shape);

}  // namespace pb
