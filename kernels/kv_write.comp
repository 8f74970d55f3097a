#version 450
// Appends C columns of k and v to one layer's KV cache as float16:
//   K[kvh][pos0 + c][d] = f16(k[c][kvh * head_dim + d]), and the same for V.
// The cache is [n_kv_heads][max_ctx][head_dim] so attention streams each head's rows
// contiguously. One invocation per element of a column; workgroup row y is the column.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x = 256) in;

layout(binding = 0) readonly buffer K { float k[]; };
layout(binding = 1) readonly buffer V { float v[]; };
layout(binding = 2) writeonly buffer KCache { float16_t k_cache[]; };
layout(binding = 3) writeonly buffer VCache { float16_t v_cache[]; };

layout(push_constant) uniform Push {
  uint n_kv_heads;  // heads in k, v and the cache
  uint head_dim;    // elements per head
  uint pos0;        // cache row of column 0
  uint max_ctx;     // rows per head in the cache
  uint k_stride;    // floats between k columns
  uint v_stride;    // floats between v columns
} pc;

void main() {
  const uint e = gl_GlobalInvocationID.x;  // kvh * head_dim + d
  if (e >= pc.n_kv_heads * pc.head_dim) return;
  const uint c = gl_WorkGroupID.y;
  const uint head = e / pc.head_dim;
  const uint d = e - head * pc.head_dim;
  const uint row = head * pc.max_ctx + pc.pos0 + c;
  k_cache[row * pc.head_dim + d] = float16_t(k[c * pc.k_stride + e]);
  v_cache[row * pc.head_dim + d] = float16_t(v[c * pc.v_stride + e]);
}
