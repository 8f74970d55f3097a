#version 450
// Gated linear unit of the FFN: out[c][i] = act(gate[c][i]) * up[c][i], with SiLU (SwiGLU:
// Llama, Qwen) or the tanh-approximated GELU (GeGLU: Gemma). gate and up may be the two halves
// of one fused gate/up projection output: each has its own stride.
// One invocation per element; workgroup row y is the column.
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

float silu(float g) { return g / (1.0 + exp(-g)); }

// 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))). The tanh argument is clamped to +-10
// (tanh is 1 to float precision there) because tanh built from exp turns inf/inf into NaN
// for large arguments on some implementations.
float gelu_tanh(float g) {
  const float inner = 0.7978845608028654 * (g + 0.044715 * g * g * g);
  return 0.5 * g * (1.0 + tanh(clamp(inner, -10.0, 10.0)));
}

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  const uint c = gl_WorkGroupID.y;
  const float g = gate[c * pc.gate_stride + i];
  const float a = ACTIVATION == 0 ? silu(g) : gelu_tanh(g);
  out_values[c * pc.out_stride + i] = a * up[c * pc.up_stride + i];
}
