#version 450
// The Gated DeltaNet's output norm (ssm_gnorm.comp) that also quantizes its output for the
// integer-dot DMMV of the output projection: one dispatch where ssm_gnorm + quantize_x took
// two. y is written too, bit for bit as ssm_gnorm writes it (ssm_gnorm_common.glsl is shared);
// the quants and scales are bit for bit quantize_x's of that y (quantize_block.glsl).
// A workgroup owns one (head, token): heads of at most 128 elements, a multiple of 32, so each
// invocation holds one element and a head is whole blocks (engine/ops/quantizing_producer.cpp
// checks). The element an invocation holds is its subgroup_major_index(), the numbering
// quantize_block.glsl needs.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 128) in;

#include "workgroup_reduce.glsl"
#include "ssm_gnorm_common.glsl"
#define QX_QUANTS_BINDING 4
#define QX_SCALES_BINDING 5
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"
#include "quantize_block.glsl"

void main() {
  const uint head = gl_WorkGroupID.x * pc.n;
  const uint t = gl_WorkGroupID.y;
  const uint ob = t * pc.o_stride + head;
  const float scale = gnorm_scale(ob);
  const uint i = subgroup_major_index();
  const bool valid = i < pc.n;  // whole blocks: n is a multiple of 32
  const float v = valid ? gnorm_value(ob, t * pc.z_stride + head, i, scale) : 0.0;
  if (valid) y[t * pc.y_stride + head + i] = v;
  // The quantized columns are [heads][n] wide, without y's stride.
  quantize_blocks_cooperative(v, valid, t, head + i, gl_NumWorkGroups.x * pc.n);
}
