#version 450
// Test kernel: y[i] = x[i] * SCALE + add. SCALE is a specialization constant, so two
// specialization values must give two pipelines that compute different things.
layout(local_size_x = 64) in;
layout(constant_id = 0) const int SCALE = 1;

layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push { uint count; float add; } pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < pc.count) y[i] = x[i] * float(SCALE) + pc.add;
}
