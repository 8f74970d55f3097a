// Per-head RMSNorm and rotary embedding of q and k, in place, in one dispatch: workgroup
// (h, c) handles head h of column c, q heads first, then k heads. Each head of head_dim is
// optionally RMS-normalized (spec QK_NORM; Qwen3, Gemma) with weight q_norm / k_norm (or
// 1 + w, spec ADD_ONE), then its first rope_dims dimensions are rotated at position pos0 + c;
// dimensions from rope_dims on pass through (after the norm). rope_dims = 0 is "norm only",
// QK_NORM = 0 is "rope only".
//
// Invocation t owns pair units t, t + 64, ...: unit u < rope_dims / 2 is the rotated pair
// (2u, 2u + 1) (NORMAL, llama.cpp's LLAMA rope) or (u, u + rope_dims / 2) (NEOX: Qwen, Gemma);
// unit u >= rope_dims / 2 is the pass-through pair (2u, 2u + 1). Every dimension belongs to
// exactly one invocation, which reads it into registers before the norm's reduction (whose
// barriers order all reads before any write; without the norm nothing is shared), so working
// in place is safe.
//
// With WRITE_KV defined (qk_norm_rope_kv.comp) the dispatch also appends the column to the
// layer's float16 KV cache, as kv_write.comp would after it: a k head's workgroup writes its
// normed, rotated values and copies the matching v head, converted the same way, so the cache
// holds the same bits and the KV write costs no dispatch of its own.
// Included by a kernel after its #version (and WRITE_KV where wanted).
#ifdef WRITE_KV
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

layout(local_size_x = 64) in;
layout(constant_id = 0) const int QK_NORM = 1;  // 1: RMSNorm each head first
layout(constant_id = 1) const int ADD_ONE = 0;  // 1: norm weight is 1 + w (Gemma)
layout(constant_id = 2) const int NEOX = 0;     // pb::RopeStyle: 0 NORMAL, 1 NEOX

const uint MAX_UNITS = 4;  // pair units per invocation: head_dim <= 2 * 64 * 4 = 512

layout(binding = 0) buffer Q { float q[]; };  // column c at c * q_stride, head h at h * head_dim
layout(binding = 1) buffer K { float k[]; };  // column c at c * k_stride, head h at h * head_dim
layout(binding = 2) readonly buffer QNorm { float q_norm[]; };  // head_dim weights
layout(binding = 3) readonly buffer KNorm { float k_norm[]; };  // head_dim weights
#ifdef WRITE_KV
layout(binding = 4) readonly buffer V { float v_in[]; };             // column c at c * v_stride
layout(binding = 5) writeonly buffer KCache { float16_t k_cache[]; };  // [n_k_heads][max_ctx][head_dim]
layout(binding = 6) writeonly buffer VCache { float16_t v_cache[]; };  // likewise
#endif

layout(push_constant) uniform Push {
  uint n_q_heads;     // heads in q
  uint n_k_heads;     // heads in k
  uint head_dim;      // elements per head, even, <= 512
  uint rope_dims;     // leading dimensions rotated, even, <= head_dim; 0 = no rotation
  uint pos0;          // position of column 0
  uint q_stride;      // floats between q columns
  uint k_stride;      // floats between k columns
  float freq_ratio_hi;  // theta^(-2 / rope_dims) as a float-float: high part
  float freq_ratio_lo;  //   and low part (computed in double by the op builder)
  float eps;          // added to the mean square of a head
#ifdef WRITE_KV
  uint v_stride;      // floats between v columns
  uint max_ctx;       // cache rows per head
#endif
} pc;

#include "rope_angle.glsl"
#include "workgroup_reduce.glsl"

bool is_q;
uint head_base;

// Branches, not ?:, so a q head never forms an address into k (both bindings differ in size).
float load_at(uint d) {
  if (is_q) return q[head_base + d];
  return k[head_base + d];
}
void store_at(uint d, float value) {
  if (is_q) q[head_base + d] = value;
  else k[head_base + d] = value;
}
float norm_weight(uint d) {
  const float w = is_q ? q_norm[d] : k_norm[d];
  return ADD_ONE != 0 ? 1.0 + w : w;
}

void main() {
  const uint head = gl_WorkGroupID.x;
  const uint c = gl_WorkGroupID.y;
  is_q = head < pc.n_q_heads;
  head_base = is_q ? c * pc.q_stride + head * pc.head_dim
                   : c * pc.k_stride + (head - pc.n_q_heads) * pc.head_dim;
  const uint units = pc.head_dim / 2;
  const uint rotated = pc.rope_dims / 2;

  uvec2 dims[MAX_UNITS];
  vec2 values[MAX_UNITS];
  float squares = 0.0;
  for (uint j = 0; j < MAX_UNITS; ++j) {
    const uint u = gl_LocalInvocationID.x + j * gl_WorkGroupSize.x;
    dims[j] = NEOX != 0 && u < rotated ? uvec2(u, u + rotated) : uvec2(2 * u, 2 * u + 1);
    values[j] = vec2(0.0);
    if (u < units) values[j] = vec2(load_at(dims[j].x), load_at(dims[j].y));
    squares += dot(values[j], values[j]);
  }

  if (QK_NORM != 0) {
    const float scale = inversesqrt(wg_sum(squares) / float(pc.head_dim) + pc.eps);
    for (uint j = 0; j < MAX_UNITS; ++j) {
      const uint u = gl_LocalInvocationID.x + j * gl_WorkGroupSize.x;
      if (u < units) {
        values[j] = (values[j] * scale) * vec2(norm_weight(dims[j].x), norm_weight(dims[j].y));
      }
    }
  }

  const vec2 ratio = vec2(pc.freq_ratio_hi, pc.freq_ratio_lo);
  const float position = float(pc.pos0 + c);
  for (uint j = 0; j < MAX_UNITS; ++j) {
    const uint u = gl_LocalInvocationID.x + j * gl_WorkGroupSize.x;
    if (u >= units) continue;
    vec2 v = values[j];
    if (u < rotated) {
      const vec2 cs = rope_cos_sin(ratio, u, position);
      v = vec2(v.x * cs.x - v.y * cs.y, v.x * cs.y + v.y * cs.x);
    }
    store_at(dims[j].x, v.x);
    store_at(dims[j].y, v.y);
#ifdef WRITE_KV
    if (!is_q) {
      const uint kv_head = head - pc.n_q_heads;
      const uint row = (kv_head * pc.max_ctx + pc.pos0 + c) * pc.head_dim;
      const uint v_base = c * pc.v_stride + kv_head * pc.head_dim;
      k_cache[row + dims[j].x] = float16_t(v.x);
      k_cache[row + dims[j].y] = float16_t(v.y);
      v_cache[row + dims[j].x] = float16_t(v_in[v_base + dims[j].x]);
      v_cache[row + dims[j].y] = float16_t(v_in[v_base + dims[j].y]);
    }
#endif
  }
}
