#version 450
// The token embedding of one decode step that also writes the int8 input of the RMSNorm after
// it (the first layer's attention norm), as the residual projections write it for every later
// norm (dmmv_intdot_norm_epilogue.glsl), so that norm needs no dispatch of its own
// (norm_placement: producer). What it writes:
//   x              dequant(table row tokens[token0]) * scale, embed.comp's bits (dequant.glsl)
//   quants, scales x * w quantized in blocks of 32 (w: the norm's weight), as quantize_x
//                  quantizes (quantize_block.glsl); the quants of (x / rms) * w are the same
//                  integers with every scale divided by rms, which the readers do
//                  (dmmv_intdot_input_rms.glsl)
//   block_squares  sum of x^2 over each block of 32
// Every value of a block is in this workgroup: no other workgroup is waited for. A token id >=
// vocab writes NaN into x, as embed.comp does, so a bad id shows in the output.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(local_size_x = 256) in;  // one element per invocation
layout(constant_id = 0) const int FORMAT = 0;  // pb::WeightFormat: F32, F16, Q8_0, Q4_K, Q6_K

layout(binding = 0) readonly buffer Table { uint8_t table_bytes[]; };  // vocab rows of hidden
layout(binding = 1) readonly buffer Tokens { uint tokens[]; };
layout(binding = 2) writeonly buffer X { float x[]; };  // one column
layout(binding = 3) readonly buffer NormWeight { float norm_weight[]; };
#include "norm_weight_add_one.glsl"
#define QX_QUANTS_BINDING 4
#define QX_SCALES_BINDING 5
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
layout(binding = 6) writeonly buffer BlockSquares { float block_squares[]; };

layout(push_constant) uniform Push {  // embed.comp's, so one builder fills both
  uint hidden;    // elements of the row, a multiple of 32
  uint vocab;     // rows of the table
  uint token0;    // index in the tokens binding of the token id
  uint x_stride;  // unused: one column
  float scale;    // multiplier of every element
} pc;

#define DQ_LOAD_BYTE(i) uint(table_bytes[i])
#include "dequant.glsl"
#include "quantize_block.glsl"

// The block's sum of x^2 in every lane (lane_group_reduce.glsl, through quantize_block's slots:
// each call starts with a barrier where it uses them).
PB_LANE_GROUP_REDUCE(block_float_sum, float, lane_group_add, QB_SLOTS)

void main() {
  const uint i = subgroup_major_global_index();  // the numbering quantize_block.glsl needs
  const bool valid = i < pc.hidden;  // whole blocks: hidden is a multiple of 32
  const uint token = tokens[pc.token0];
  float value = 0.0;
  if (valid) {
    value = token < pc.vocab ? dq_weight(uint(FORMAT), token, pc.vocab, pc.hidden, i) * pc.scale
                             : uintBitsToFloat(0x7FC00000u);
    x[i] = value;
  }
  const float weight = valid ? applied_norm_weight(norm_weight[i]) : 0.0;
  quantize_blocks_cooperative(value * weight, valid, 0u, i, pc.hidden);  // every invocation: barriers
  const float squares = block_float_sum(value * value, QX_BLOCK);
  if (valid && i % QX_BLOCK == 0u) block_squares[i / QX_BLOCK] = squares;
}
