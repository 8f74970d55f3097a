// The quantized block layouts, byte for byte as GGUF stores them (ggml's block_q8_0,
// block_q4_K, block_q6_K), and the element order inside each block. Everything that reads or
// writes quantized bytes on the CPU goes through these, and kernels/include/dequant.glsl
// mirrors the same index arithmetic (within the device's order of Q8_0's and Q6_K's block
// parts, engine/quant/device_layout.h), so llama.cpp and the GPU read what the CPU wrote.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pb {

// 32 weights: w[i] = d * qs[i].
struct BlockQ8_0 {
  uint16_t d;     // scale, f16 bits
  int8_t qs[32];  // quants, in weight order
};

// 256 weights in 8 sub-blocks of 32: w[i] = d * sc[i/32] * q[i] - dmin * m[i/32], q in 0..15.
struct BlockQ4_K {
  uint16_t d;          // super-block scale of the sub-block scales, f16 bits
  uint16_t dmin;       // super-block scale of the sub-block mins, f16 bits
  uint8_t scales[12];  // 8 six-bit scales and 8 six-bit mins (see q4_k_scale_min)
  uint8_t qs[128];     // nibbles: byte 32*g + l holds weight 64*g + l (low) and 64*g + 32 + l (high)
};

// 256 weights in 16 sub-blocks of 16: w[i] = d * scales[i/16] * (q[i] - 32), q in 0..63.
struct BlockQ6_K {
  uint8_t ql[128];    // low 4 bits of the quants (see q6_k_quant for the order)
  uint8_t qh[64];     // high 2 bits of the quants
  int8_t scales[16];  // sub-block scales
  uint16_t d;         // super-block scale, f16 bits
};

static_assert(sizeof(BlockQ8_0) == 34 && offsetof(BlockQ8_0, qs) == 2);
static_assert(sizeof(BlockQ4_K) == 144 && offsetof(BlockQ4_K, scales) == 4 &&
              offsetof(BlockQ4_K, qs) == 16);
static_assert(sizeof(BlockQ6_K) == 210 && offsetof(BlockQ6_K, qh) == 128 &&
              offsetof(BlockQ6_K, scales) == 192 && offsetof(BlockQ6_K, d) == 208);

struct ScaleMin {
  uint8_t scale;  // six bits
  uint8_t min;    // six bits
};

// Sub-block j (0..7) of a Q4_K block. Sub-blocks 0-3 keep their scale and min in the low six
// bits of bytes j and j+4; sub-blocks 4-7 keep the low four bits of each in byte j+4 (scale low
// nibble, min high nibble) and the top two bits in the high bits of bytes j-4 (scale) and j (min).
inline ScaleMin q4_k_scale_min(const uint8_t* scales, int j) {
  if (j < 4) {
    return {static_cast<uint8_t>(scales[j] & 63), static_cast<uint8_t>(scales[j + 4] & 63)};
  }
  return {static_cast<uint8_t>((scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4)),
          static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4))};
}

// Inverse of q4_k_scale_min; leaves the bits of other sub-blocks alone, so order does not matter.
inline void q4_k_set_scale_min(uint8_t* scales, int j, ScaleMin v) {
  if (j < 4) {
    scales[j] = static_cast<uint8_t>((scales[j] & 0xC0) | (v.scale & 63));
    scales[j + 4] = static_cast<uint8_t>((scales[j + 4] & 0xC0) | (v.min & 63));
  } else {
    scales[j + 4] = static_cast<uint8_t>((v.scale & 0xF) | ((v.min & 0xF) << 4));
    scales[j - 4] = static_cast<uint8_t>((scales[j - 4] & 0x3F) | ((v.scale >> 4) << 6));
    scales[j] = static_cast<uint8_t>((scales[j] & 0x3F) | ((v.min >> 4) << 6));
  }
}

// The 4-bit quant of weight i (0..255) of a Q4_K block.
inline uint8_t q4_k_quant(const BlockQ4_K& b, int i) {
  const uint8_t byte = b.qs[(i / 64) * 32 + (i % 32)];
  return static_cast<uint8_t>((i % 64) < 32 ? byte & 0xF : byte >> 4);
}
inline void q4_k_set_quant(BlockQ4_K& b, int i, uint8_t q) {
  uint8_t& byte = b.qs[(i / 64) * 32 + (i % 32)];
  byte = (i % 64) < 32 ? static_cast<uint8_t>((byte & 0xF0) | (q & 0xF))
                       : static_cast<uint8_t>((byte & 0x0F) | ((q & 0xF) << 4));
}

// Where the 6-bit quant of weight i (0..255) of a Q6_K block lives. In each half of 128
// weights, weight 32*k + l (k = 0..3, l = 0..31) takes its low nibble from ql[64*half + l +
// 32*(k&1)] (low nibble for k < 2, high for k >= 2) and its top two bits from bits 2k..2k+1 of
// qh[32*half + l].
struct Q6KPosition {
  int ql_index;  // byte in ql
  int ql_shift;  // 0 or 4
  int qh_index;  // byte in qh
  int qh_shift;  // 0, 2, 4 or 6
};
inline Q6KPosition q6_k_position(int i) {
  const int half = i / 128, k = (i % 128) / 32, l = i % 32;
  return {64 * half + 32 * (k & 1) + l, 4 * (k >> 1), 32 * half + l, 2 * k};
}
inline uint8_t q6_k_quant(const BlockQ6_K& b, int i) {
  const Q6KPosition p = q6_k_position(i);
  return static_cast<uint8_t>(((b.ql[p.ql_index] >> p.ql_shift) & 0xF) |
                              (((b.qh[p.qh_index] >> p.qh_shift) & 3) << 4));
}
inline void q6_k_set_quant(BlockQ6_K& b, int i, uint8_t q) {
  const Q6KPosition p = q6_k_position(i);
  b.ql[p.ql_index] = static_cast<uint8_t>((b.ql[p.ql_index] & ~(0xF << p.ql_shift)) |
                                          ((q & 0xF) << p.ql_shift));
  b.qh[p.qh_index] = static_cast<uint8_t>((b.qh[p.qh_index] & ~(3 << p.qh_shift)) |
                                          (((q >> 4) & 3) << p.qh_shift));
}

}  // namespace pb
