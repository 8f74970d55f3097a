#version 450
// moe_acc.comp for one decode token that also writes the int8 input of the RMSNorm after it
// (the next layer's attention norm, or the final norm), as the residual projections and the
// embedding write it for the other norms (dmmv_intdot_norm_epilogue.glsl, embed_norm.comp), so
// that norm needs no dispatch of its own (norm_placement: producer). What it writes:
//   x              x + sum_j route_w[j] * out[j], moe_acc.comp's bits (the same sum, in choice order)
//   quants, scales x * w quantized in blocks of 32 (w: the norm's weight), as quantize_x
//                  quantizes (quantize_block.glsl); the readers divide by the RMS
//                  (dmmv_intdot_input_rms.glsl)
//   block_squares  sum of x^2 over each block of 32
// Every value of a block is in this workgroup: no other workgroup is waited for.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(local_size_x = 256) in;  // one element per invocation

layout(binding = 0) readonly buffer RouteW { float route_w[]; };  // [K]
layout(binding = 1) readonly buffer Out { float expert_out[]; };  // assignment a at a * out_stride
layout(binding = 2) buffer X { float x[]; };                      // one column
layout(binding = 3) readonly buffer NormWeight { float norm_weight[]; };
#include "norm_weight_add_one.glsl"
#define QX_QUANTS_BINDING 4
#define QX_SCALES_BINDING 5
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
layout(binding = 6) writeonly buffer BlockSquares { float block_squares[]; };

layout(push_constant) uniform Push {  // moe_acc.comp's, so one builder fills both
  uint n;           // elements of the column, a multiple of 32
  uint top_k;       // K: the token's assignments
  uint out_stride;  // floats between expert output columns
  uint x_stride;    // unused: one column
} pc;

#include "quantize_block.glsl"

// The block's sum of x^2 in every lane (lane_group_reduce.glsl, through quantize_block's slots:
// each call starts with a barrier where it uses them).
PB_LANE_GROUP_REDUCE(block_float_sum, float, lane_group_add, QB_SLOTS)

void main() {
  const uint i = subgroup_major_global_index();  // the numbering quantize_block.glsl needs
  const bool valid = i < pc.n;  // whole blocks: n is a multiple of 32
  float value = 0.0;
  if (valid) {
    float sum = 0.0;
    for (uint j = 0; j < pc.top_k; ++j) sum += route_w[j] * expert_out[j * pc.out_stride + i];
    value = x[i] + sum;
    x[i] = value;
  }
  const float weight = valid ? applied_norm_weight(norm_weight[i]) : 0.0;
  quantize_blocks_cooperative(value * weight, valid, 0u, i, pc.n);  // every invocation: barriers
  const float squares = block_float_sum(value * value, QX_BLOCK);
  if (valid && i % QX_BLOCK == 0u) block_squares[i / QX_BLOCK] = squares;
}
