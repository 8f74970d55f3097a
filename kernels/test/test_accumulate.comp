#version 450
// Test kernel: y[i] += x[i]. Reads and writes y, so chains of it expose every hazard kind.
layout(local_size_x = 64) in;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < pc.count) y[i] += x[i];
}
