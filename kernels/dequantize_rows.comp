#version 450
// Dequantizes `count` consecutive weights of a tensor in any weight format to f32: the check
// that the device reads blocks exactly as pb::dequantize_row does, and the embedding lookup
// (one row of the token-embedding table). Weight first_weight + k of binding 0 goes to
// element k of binding 1. Binding 0 holds `rows` rows of `cols` weights in the device layout
// from its byte 0: the start of the tensor, or of the row (Q6_K: the group of 8 rows) the caller
// bound a sub-range from.
//
// One invocation per output weight; large counts dispatch a 2-D grid: invocation (x, y)
// handles weight x + y * (groups.x * 64).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(local_size_x = 64) in;
layout(constant_id = 0) const int FORMAT = 0;  // pb::WeightFormat: F32, F16, Q8_0, Q4_K, Q6_K

layout(binding = 0) readonly buffer Weights { uint8_t weight_bytes[]; };
layout(binding = 1) writeonly buffer Out { float out_values[]; };
layout(push_constant) uniform Push {
  uint first_weight;  // weight index within binding 0, a multiple of the block size
  uint count;         // weights to dequantize
  uint cols;          // weights per row
  uint rows;          // rows bound (Q6_K: places the scales of the tensor's last group of rows)
} pc;

#define DQ_LOAD_BYTE(i) uint(weight_bytes[i])
#include "dequant.glsl"

void main() {
  const uint k = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= pc.count) return;
  const uint index = pc.first_weight + k;
  out_values[k] = dq_weight(uint(FORMAT), index / pc.cols, pc.rows, pc.cols, index % pc.cols);
}
