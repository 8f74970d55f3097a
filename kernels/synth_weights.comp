#version 450
// Deterministic synthetic weights, generated on the device so a 20 GB model never passes
// through host memory. Writes blocks [first_block, first_block + block_count) of one tensor
// into binding 0, whose byte 0 is the start of block first_block (the caller binds that
// sub-range). Byte for byte the same as pb::generate_synthetic_blocks (engine/quant/synthetic.cpp
// documents the block contents, and this file mirrors it line for line), in the device layout:
// Q8_0's rows and Q6_K's groups of 8 rows are reordered as pb::gguf_to_device_rows does.
// Integer operations only; the per-tensor scales arrive as f16 bits computed on the CPU.
//
// One invocation per block (F32/F16: per weight). Blocks of 34 and 210 bytes are not 4-byte
// aligned, so everything is written as bytes. Large tensors dispatch a 2-D grid: invocation
// (x, y) handles block x + y * (groups.x * 64).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

#include "q6_k_device_layout.glsl"
#include "q8_0_device_layout.glsl"
#include "synth_hash.glsl"

layout(local_size_x = 64) in;
layout(constant_id = 0) const int FORMAT = 0;  // pb::WeightFormat: F32, F16, Q8_0, Q4_K, Q6_K

layout(binding = 0) writeonly buffer Out { uint8_t out_bytes[]; };
layout(push_constant) uniform Push {
  uint seed;
  uint tensor_id;
  uint first_block;  // block index within the tensor of binding byte 0
  uint block_count;
  uint scale_bits;   // pb::SyntheticScale::scale_bits
  uint blocks_per_row;  // Q8_0, Q6_K: blocks per row (whole rows; Q6_K: groups of 8, or the last)
} pc;

const uint BLOCK_BYTES = FORMAT == 0 ? 4u : FORMAT == 1 ? 2u : FORMAT == 2 ? 34u
                       : FORMAT == 3 ? 144u : 210u;

uint jitter(uint bits, uint r) {
  const uint j = min(512u, bits >> 1);
  return bits - j + (((r & 1023u) * (2u * j)) >> 10);
}

int pow2_exponent(uint bits) {
  const uint field = (bits >> 10) & 31u;
  if (field == 0u) return findMSB(bits & 1023u) - 24;
  return int(field) - 15;
}

uint scaled_int_f32_bits(int u, int e) {
  if (u == 0) return 0u;
  const uint sign = u < 0 ? 0x80000000u : 0u;
  const uint a = uint(abs(u));
  const int msb = findMSB(a);
  return sign | (uint(msb + e + 127) << 23) | ((a << (23 - msb)) & 0x7FFFFFu);
}

uint scaled_int_f16_bits(int u, int e) {
  if (u == 0) return 0u;
  const uint sign = u < 0 ? 0x8000u : 0u;
  const uint a = uint(abs(u));
  const int msb = findMSB(a);
  const int exponent = msb + e + 15;
  if (exponent >= 1) return sign | (uint(exponent) << 10) | ((a << (10 - msb)) & 0x3FFu);
  return sign | (a << (e + 24));
}

uint times8_f16_bits(uint bits) {
  if (((bits >> 10) & 31u) != 0u) return bits + 0x0C00u;
  return scaled_int_f16_bits(int(bits & 1023u), -21);
}

int triangular(uint r) { return int(r & 1023u) + int((r >> 10) & 1023u) - 1023; }

void put8(uint at, uint v) { out_bytes[at] = uint8_t(v & 0xFFu); }
void put16(uint at, uint v) {
  put8(at, v);
  put8(at + 1u, v >> 8);
}
void put32(uint at, uint v) {
  for (uint k = 0u; k < 4u; ++k) put8(at + k, v >> (8u * k));
}

// The quants at `at`, the scale at `d_at`: the device layout keeps them apart.
void write_q8_0(uint state, uint at, uint d_at) {
  put16(d_at, jitter(pc.scale_bits, synth_word(state, 0u)));
  for (uint w = 0u; w < 8u; ++w) {
    const uint r = synth_word(state, 1u + w);
    for (uint k = 0u; k < 4u; ++k) {
      const uint b = (r >> (8u * k)) & 0xFFu;
      put8(at + 4u * w + k, b == 0x80u ? 0u : b);
    }
  }
}

void write_q4_k(uint state, uint at) {
  const uint w0 = synth_word(state, 0u), w1 = synth_word(state, 1u), w2 = synth_word(state, 2u);
  const uint d = jitter(pc.scale_bits, w0);
  put16(at, d);
  put16(at + 2u, times8_f16_bits(d));
  uint sc[8], m[8];
  for (uint j = 0u; j < 8u; ++j) {
    sc[j] = 32u + 2u * ((w1 >> (4u * j)) & 15u) + ((w2 >> j) & 1u);
    m[j] = ((15u * sc[j] + 8u) >> 4) + ((w2 >> (8u + 2u * j)) & 1u) - ((w2 >> (9u + 2u * j)) & 1u);
  }
  for (uint k = 0u; k < 4u; ++k) {
    put8(at + 4u + k, (sc[k] & 63u) | ((sc[k + 4u] >> 4) << 6));
    put8(at + 8u + k, (m[k] & 63u) | ((m[k + 4u] >> 4) << 6));
    put8(at + 12u + k, (sc[k + 4u] & 15u) | ((m[k + 4u] & 15u) << 4));
  }
  for (uint k = 0u; k < 32u; ++k) put32(at + 16u + 4u * k, synth_word(state, 3u + k));
}

// The body (ql, qh, scales) at `at`, d at `d_at`: the device layout keeps them apart.
void write_q6_k(uint state, uint at, uint d_at) {
  for (uint k = 0u; k < 48u; ++k) put32(at + 4u * k, synth_word(state, 5u + k));  // ql, qh
  for (uint w = 0u; w < 4u; ++w) {
    const uint r = synth_word(state, 1u + w);
    for (uint k = 0u; k < 4u; ++k) {
      const uint b = (r >> (8u * k)) & 0xFFu;
      const uint magnitude = 64u + (b & 63u);
      put8(at + 192u + 4u * w + k, (b & 0x80u) != 0u ? 0u - magnitude : magnitude);
    }
  }
  put16(d_at, jitter(pc.scale_bits, synth_word(state, 0u)));
}

void main() {
  const uint index = gl_GlobalInvocationID.x +
                     gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (index >= pc.block_count) return;
  const uint state = synth_block_state(synth_key(pc.seed, pc.tensor_id), pc.first_block + index);
  const uint at = index * BLOCK_BYTES;
  if (FORMAT == 0) {
    put32(at, scaled_int_f32_bits(triangular(synth_word(state, 0u)), pow2_exponent(pc.scale_bits)));
  } else if (FORMAT == 1) {
    put16(at, scaled_int_f16_bits(triangular(synth_word(state, 0u)), pow2_exponent(pc.scale_bits)));
  } else if (FORMAT == 3) {
    write_q4_k(state, at);
  } else {
    // Q8_0 and Q6_K in their device layouts (q8_0_device_layout.glsl, q6_k_device_layout.glsl):
    // the binding starts on a row (Q6_K: a group of 8 rows) and ends on one or at the tensor's
    // end, so its rows are a tensor of their own to those files' offsets.
    const uint row = index / pc.blocks_per_row, block = index % pc.blocks_per_row;
    const uint rows = pc.block_count / pc.blocks_per_row;
    const uint cols = pc.blocks_per_row * (FORMAT == 2 ? 32u : 256u);
    if (FORMAT == 2) {
      write_q8_0(state, q8_0_quants_byte(row, cols, block), q8_0_scale_byte(row, cols, block));
    } else {
      write_q6_k(state, q6_k_body_byte(row, cols, block), q6_k_d_byte(row, cols, block, rows));
    }
  }
}
