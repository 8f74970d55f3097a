#version 450
// Sigmoid gating in place: y[c][i] *= sigmoid(g[c][i]). Qwen3.5's gated attention output uses
// a gate per element; its shared expert uses one gate per token, g[c] broadcast over the
// column (spec BROADCAST).
// One invocation per element; workgroup row y is the column.
layout(local_size_x = 256) in;
layout(constant_id = 0) const int BROADCAST = 0;  // 1: g[c * g_stride] gates all of column c

layout(binding = 0) readonly buffer G { float g[]; };
layout(binding = 1) buffer Y { float y[]; };

layout(push_constant) uniform Push {
  uint n;         // elements per column of y
  uint g_stride;  // floats between g columns
  uint y_stride;  // floats between y columns
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  const uint c = gl_WorkGroupID.y;
  const float gate = g[c * pc.g_stride + (BROADCAST != 0 ? 0u : i)];
  const uint at = c * pc.y_stride + i;
  y[at] = y[at] / (1.0 + exp(-gate));
}
