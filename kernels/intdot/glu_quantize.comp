#version 450
// The FFN's gated linear unit that also quantizes its output for the integer-dot DMMV of the
// down projection: one dispatch where glu + quantize_x took two. out is written too and is
// bit-identical to glu.comp's (glu_activation.glsl is shared); the quants and scales are
// bit-identical to quantize_x's of that out (quantize_block.glsl is shared).
// One invocation per element, as glu.comp; the workgroup quantizes its outputs together
// (quantize_blocks_cooperative). Workgroup row y is the column.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;
layout(constant_id = 0) const int ACTIVATION = 0;  // pb::GluActivation: 0 SiLU, 1 GELU (tanh)

layout(binding = 0) readonly buffer Gate { float gate[]; };
layout(binding = 1) readonly buffer Up { float up[]; };
layout(binding = 2) writeonly buffer Out { float out_values[]; };
#define QX_QUANTS_BINDING 3
#define QX_SCALES_BINDING 4
#define QX_WRITE
#include "dmmv_intdot_quantized_x.glsl"

layout(push_constant) uniform Push {
  uint n;            // elements per column, a multiple of 32
  uint gate_stride;  // floats between gate columns
  uint up_stride;    // floats between up columns
  uint out_stride;   // floats between out columns
} pc;  // the quants and scales bindings start at column 0

#include "glu_activation.glsl"
#include "quantize_block.glsl"

void main() {
  const uint i = subgroup_major_global_index();  // the numbering quantize_block.glsl needs
  const uint c = gl_WorkGroupID.y;
  const bool valid = i < pc.n;  // whole blocks: n is a multiple of 32
  const float v = valid ? glu_value(gate[c * pc.gate_stride + i], up[c * pc.up_stride + i]) : 0.0;
  if (valid) out_values[c * pc.out_stride + i] = v;
  quantize_blocks_cooperative(v, valid, c, i, pc.n);
}
