#version 450
// RMSNorm of activation columns that also quantizes its output for the integer-dot DMMV: one
// dispatch where rmsnorm + quantize_x took two (a decode step runs one per norm). y is written
// too and is bit-identical to rmsnorm.comp's (rmsnorm_body.glsl is shared), and the quants and
// scales are bit-identical to quantize_x's of that y (quantize_block.glsl is shared).
//
// Workgroups as in rmsnorm.comp (slice x of column y); the slice's outputs are quantized by the
// workgroup together, one output per invocation (quantize_blocks_cooperative).
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;  // RMS_SLICE: one output per invocation
layout(constant_id = 0) const int ADD_ONE = 0;  // 1: scale by (1 + w), Gemma's stored weights

layout(binding = 0) readonly buffer X { float x[]; };   // column c at c * x_stride floats
layout(binding = 1) readonly buffer W { float w[]; };   // n weights
layout(binding = 2) writeonly buffer Y { float y[]; };  // column c at c * y_stride floats
#define QX_QUANTS_BINDING 3
#define QX_SCALES_BINDING 4
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"

layout(push_constant) uniform Push {
  uint n;         // elements per column, a multiple of 32
  uint x_stride;  // floats between x columns
  uint y_stride;  // floats between y columns
  float eps;      // added to the mean square
} pc;  // the quants and scales bindings start at column 0

#include "workgroup_reduce.glsl"
#include "rmsnorm_body.glsl"
#include "quantize_block.glsl"

void main() {
  const uint c = gl_WorkGroupID.y;
  const uint xb = c * pc.x_stride, yb = c * pc.y_stride;
  const uint i = subgroup_major_global_index();  // this invocation's output (RMS_SLICE a workgroup)
  const bool valid = i < pc.n;  // whole blocks: n is a multiple of 32
  const float v = rmsnorm_output(xb, pc.n, pc.eps, i);
  if (valid) y[yb + i] = v;
  quantize_blocks_cooperative(v, valid, c, i, pc.n);  // every invocation: it may have barriers
}
