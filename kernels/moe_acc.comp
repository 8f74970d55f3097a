#version 450
// MoE weighted accumulation into the residual stream: for token c,
//   x[c][i] += sum_j route_w[c*K + j] * out[c*K + j][i]
// over the K experts' down-projection outputs, summed in choice order j = 0..K-1 (the order
// of the CPU reference), then added to x once.
// One invocation per element; workgroup row y is the token.
layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer RouteW { float route_w[]; };  // [C][K]
layout(binding = 1) readonly buffer Out { float expert_out[]; };  // assignment a at a * out_stride
layout(binding = 2) buffer X { float x[]; };                      // token c at c * x_stride

layout(push_constant) uniform Push {
  uint n;           // elements per column (hidden)
  uint top_k;       // K: assignments per token
  uint out_stride;  // floats between expert output columns
  uint x_stride;    // floats between x columns
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  const uint c = gl_WorkGroupID.y;
  float sum = 0.0;
  for (uint j = 0; j < pc.top_k; ++j) {
    const uint a = c * pc.top_k + j;
    sum += route_w[a] * expert_out[a * pc.out_stride + i];
  }
  x[c * pc.x_stride + i] += sum;
}
