// Dequantization of phasebench's weight formats: the GGUF blocks of engine/quant/blocks.h (as
// the device orders Q8_0's and Q6_K's bytes: engine/quant/device_layout.h), the same element
// order, and ggml's float operations in ggml's order, so a kernel computes exactly what
// pb::dequantize_row computes on the CPU.
//
// GLSL cannot pass a buffer to a function, so this header has two layers.
//  1. Pure functions of values the caller has already loaded, with no buffer access: f16 bits
//     to float, the Q4_K scale/min unpacking from the 12 scale bytes (as a uvec3 of
//     little-endian words), where a weight's quant lives inside a Q4_K or Q6_K block, and the
//     per-format value formulas. Kernels that load whole words (DMMV) build on these.
//  2. Byte-addressed accessors, compiled only when the includer defines DQ_LOAD_BYTE(i) as the
//     uint value (0..255) of byte i of the weight data before including this file:
//        layout(binding = 0) readonly buffer Weights { uint8_t weight_bytes[]; };
//        #define DQ_LOAD_BYTE(i) uint(weight_bytes[i])
//        #include "dequant.glsl"
//     dq_weight(format, row, rows, cols, k) then dequantizes weight k of a row of a tensor of
//     `rows` rows of `cols` weights that starts at byte 0, as the device stores it (GGUF's
//     blocks, except Q8_0 and Q6_K: engine/quant/device_layout.h). Byte offsets are 32-bit:
//     bind at most 4 GiB.
// Format values are pb::WeightFormat's (specialization constant 0 of the kernels).
#ifndef PB_DEQUANT_GLSL
#define PB_DEQUANT_GLSL

const uint DQ_F32 = 0u;
const uint DQ_F16 = 1u;
const uint DQ_Q8_0 = 2u;
const uint DQ_Q4_K = 3u;
const uint DQ_Q6_K = 4u;

uint dq_block_weights(uint format) { return format <= DQ_F16 ? 1u : format == DQ_Q8_0 ? 32u : 256u; }

uint dq_block_bytes(uint format) {
  return format == DQ_F32 ? 4u : format == DQ_F16 ? 2u : format == DQ_Q8_0 ? 34u
       : format == DQ_Q4_K ? 144u : 210u;
}

// f16 bits (low 16 bits of `bits`) to float by integer operations, so f16 subnormals (common
// in Q6_K and Q4_K scales) are exact whatever the device's fp16 denormal mode.
float dq_half(uint bits) {
  const uint sign = (bits & 0x8000u) << 16;
  const uint exponent = (bits >> 10) & 0x1Fu;
  const uint mantissa = bits & 0x3FFu;
  if (exponent == 0x1Fu) return uintBitsToFloat(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0u) return uintBitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0u) return uintBitsToFloat(sign);
  const int msb = findMSB(mantissa);
  return uintBitsToFloat(sign | (uint(msb + 103) << 23) | ((mantissa << (23 - msb)) & 0x7FFFFFu));
}

// float(q) for q < 2^23, exactly, by placing q in the mantissa of 2^23: an OR and a
// subtraction at full rate, where the integer-to-float instruction runs at a quarter on
// NVIDIA's recent GPUs.
float dq_small_uint_to_float(uint q) { return uintBitsToFloat(0x4B000000u | q) - 8388608.0; }

// Byte k of little-endian `words`; a byte as a signed int8.
uint dq_byte_of(uvec3 words, uint k) { return (words[k >> 2] >> (8u * (k & 3u))) & 0xFFu; }
int dq_int8(uint byte) { return int(byte << 24) >> 24; }

// Q8_0: w = q * d.
float dq_q8_0_value(float d, int q) { return float(q) * d; }

// Q4_K sub-block j (0..7): (six-bit scale, six-bit min) from the 12 packed scale bytes.
uvec2 dq_q4_k_scale_min(uvec3 scales, uint j) {
  if (j < 4u) return uvec2(dq_byte_of(scales, j) & 63u, dq_byte_of(scales, j + 4u) & 63u);
  const uint packed = dq_byte_of(scales, j + 4u);
  return uvec2((packed & 0xFu) | ((dq_byte_of(scales, j - 4u) >> 6) << 4),
               (packed >> 4) | ((dq_byte_of(scales, j) >> 6) << 4));
}
// Weight i (0..255) of a Q4_K block: its byte in qs and the shift of its nibble in that byte.
uint dq_q4_k_qs_byte(uint i) { return (i >> 6) * 32u + (i & 31u); }
uint dq_q4_k_qs_shift(uint i) { return (i & 32u) >> 3; }
// w = (d * scale) * q - dmin * min, not fused, as ggml rounds it (q converted exactly, without
// the slower integer-to-float instruction).
float dq_q4_k_value(float d, float dmin, uvec2 scale_min, uint q) {
  precise float step = d * float(scale_min.x);
  precise float offset = dmin * float(scale_min.y);
  precise float w = step * dq_small_uint_to_float(q) - offset;
  return w;
}

// Weight i (0..255) of a Q6_K block: its bytes in ql and qh, and its sub-block scale index.
uint dq_q6_k_ql_byte(uint i) { return (i >> 7) * 64u + (i & 63u); }
uint dq_q6_k_qh_byte(uint i) { return (i >> 7) * 32u + (i & 31u); }
uint dq_q6_k_scale_index(uint i) { return i >> 4; }
// The six-bit quant of weight i from its ql and qh bytes.
uint dq_q6_k_quant(uint ql_byte, uint qh_byte, uint i) {
  return ((ql_byte >> ((i & 64u) >> 4)) & 0xFu) | (((qh_byte >> ((i >> 4) & 6u)) & 3u) << 4);
}
// w = (d * scale) * (q - 32).
float dq_q6_k_value(float d, int scale, uint q) {
  precise float w = d * float(scale) * float(int(q) - 32);
  return w;
}

#ifdef DQ_LOAD_BYTE

uint dq_load_u16(uint at) { return DQ_LOAD_BYTE(at) | (DQ_LOAD_BYTE(at + 1u) << 8); }
uint dq_load_u32(uint at) { return dq_load_u16(at) | (dq_load_u16(at + 2u) << 16); }

#include "q6_k_device_layout.glsl"
#include "q8_0_device_layout.glsl"

// Weight i of the F32, F16 or Q4_K block that starts at byte `at` (GGUF's layout, which the
// device keeps for these formats).
float dq_weight_in_block(uint format, uint at, uint i) {
  if (format == DQ_F32) return uintBitsToFloat(dq_load_u32(at));
  if (format == DQ_F16) return dq_half(dq_load_u16(at));
  const uvec3 scales = uvec3(dq_load_u32(at + 4u), dq_load_u32(at + 8u), dq_load_u32(at + 12u));
  const uint q = (DQ_LOAD_BYTE(at + 16u + dq_q4_k_qs_byte(i)) >> dq_q4_k_qs_shift(i)) & 0xFu;
  return dq_q4_k_value(dq_half(dq_load_u16(at)), dq_half(dq_load_u16(at + 2u)),
                       dq_q4_k_scale_min(scales, i >> 5), q);
}

// Weight k of row `row` of a tensor of `rows` rows of `cols` weights stored from byte 0, as the
// device stores it (q8_0_device_layout.glsl, q6_k_device_layout.glsl; GGUF's blocks otherwise).
float dq_weight(uint format, uint row, uint rows, uint cols, uint k) {
  if (format == DQ_Q8_0) {
    return dq_q8_0_value(dq_half(dq_load_u16(q8_0_scale_byte(row, cols, k / 32u))),
                         dq_int8(DQ_LOAD_BYTE(q8_0_quants_byte(row, cols, 0u) + k)));
  }
  if (format == DQ_Q6_K) {
    const uint body = q6_k_body_byte(row, cols, k / 256u), i = k % 256u;
    const uint q = dq_q6_k_quant(DQ_LOAD_BYTE(body + dq_q6_k_ql_byte(i)),
                                 DQ_LOAD_BYTE(body + 128u + dq_q6_k_qh_byte(i)), i);
    const int scale = dq_int8(DQ_LOAD_BYTE(body + 192u + dq_q6_k_scale_index(i)));
    return dq_q6_k_value(dq_half(dq_load_u16(q6_k_d_byte(row, cols, k / 256u, rows))), scale, q);
  }
  const uint per_block = dq_block_weights(format);
  const uint row_bytes = (cols / per_block) * dq_block_bytes(format);
  return dq_weight_in_block(format, row * row_bytes + (k / per_block) * dq_block_bytes(format),
                            k % per_block);
}

#endif  // DQ_LOAD_BYTE
#endif  // PB_DEQUANT_GLSL
