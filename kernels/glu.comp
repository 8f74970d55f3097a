#version 450
// Gated linear unit of the FFN: out[c][i] = act(gate[c][i]) * up[c][i], with SiLU (SwiGLU:
// Llama, Qwen) or the tanh-approximated GELU (GeGLU: Gemma); glu_activation.glsl, which
// intdot/glu_quantize.comp shares. gate and up may be the two halves of one fused gate/up
// projection output: each has its own stride.
// One invocation per element; workgroup row y is the column.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;
layout(constant_id = 0) const int ACTIVATION = 0;  // pb::GluActivation: 0 SiLU, 1 GELU (tanh)

layout(binding = 0) readonly buffer Gate { float gate[]; };
layout(binding = 1) readonly buffer Up { float up[]; };
layout(binding = 2) writeonly buffer Out { float out_values[]; };

layout(push_constant) uniform Push {
  uint n;            // elements per column
  uint gate_stride;  // floats between gate columns
  uint up_stride;    // floats between up columns
  uint out_stride;   // floats between out columns
} pc;

#include "glu_activation.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  const uint c = gl_WorkGroupID.y;
  out_values[c * pc.out_stride + i] = glu_value(gate[c * pc.gate_stride + i], up[c * pc.up_stride + i]);
}
