#version 450
// Element-wise sum of activation columns: y[c][i] = a[c][i] + b[c][i] (the residual add where
// it is not fused into a projection), or in place y[c][i] += b[c][i] (spec IN_PLACE), where
// binding 0 is not read and y is read and written.
// One invocation per element; workgroup row y is the column.
layout(local_size_x = 256) in;
layout(constant_id = 0) const int IN_PLACE = 0;  // 1: y += b

layout(binding = 0) readonly buffer A { float a[]; };
layout(binding = 1) readonly buffer B { float b[]; };
layout(binding = 2) buffer Y { float y[]; };  // not writeonly: the in-place build reads it

layout(push_constant) uniform Push {
  uint n;         // elements per column
  uint a_stride;  // floats between a columns (unused in place)
  uint b_stride;  // floats between b columns
  uint y_stride;  // floats between y columns
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n) return;
  const uint c = gl_WorkGroupID.y;
  const uint at = c * pc.y_stride + i;
  const float lhs = IN_PLACE != 0 ? y[at] : a[c * pc.a_stride + i];
  y[at] = lhs + b[c * pc.b_stride + i];
}
