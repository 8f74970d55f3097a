#version 450
// Token embedding: x[c][i] = dequant(table row tokens[token0 + c])[i] * scale, for a table in
// any weight format (spec FORMAT). Dequantization goes through dequant.glsl, which performs
// pb::dequantize_row's float operations, so the rows are bit-exact; the scale is Gemma's
// sqrt(hidden) (1 elsewhere). One invocation per element; workgroup row y is the column.
// A token id >= vocab writes NaN instead of reading outside the table, so a bad id (an
// argmax over NaN logits) shows up in the output instead of as a device fault.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(local_size_x = 256) in;
layout(constant_id = 0) const int FORMAT = 0;  // pb::WeightFormat: F32, F16, Q8_0, Q4_K, Q6_K

layout(binding = 0) readonly buffer Table { uint8_t table_bytes[]; };  // vocab rows of hidden
layout(binding = 1) readonly buffer Tokens { uint tokens[]; };
layout(binding = 2) writeonly buffer X { float x[]; };  // column c at c * x_stride floats

layout(push_constant) uniform Push {
  uint hidden;    // elements per row and per column
  uint vocab;     // rows of the table
  uint token0;    // index in the tokens binding of column 0's token id
  uint x_stride;  // floats between x columns
  float scale;    // multiplier of every element
} pc;

#define DQ_LOAD_BYTE(i) uint(table_bytes[i])
#include "dequant.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.hidden) return;
  const uint c = gl_WorkGroupID.y;
  const uint token = tokens[pc.token0 + c];
  const uint at = c * pc.x_stride + i;
  if (token >= pc.vocab) {
    x[at] = uintBitsToFloat(0x7FC00000u);
    return;
  }
  const uint format = uint(FORMAT);
  x[at] = dq_weight(format, token, pc.vocab, pc.hidden, i) * pc.scale;
}
