#version 450
// Prefill attention: C query tokens at positions pos0 .. pos0 + C - 1 attend causally to cache
// positions [max(0, p - window + 1), p] (window 0: [0, p]); the chunk's own K/V rows are in the
// cache already. Workgroup (x, y) takes q heads x * HEADS .. (one GQA group) for tokens
// y * BQ .. y * BQ + BQ - 1, so every staged K/V tile serves HEADS * BQ rows.
#extension GL_GOOGLE_include_directive : require

layout(binding = 0) readonly buffer Q { float q[]; };         // [C][q_stride]
layout(binding = 1) readonly buffer K { uvec4 k_cache[]; };   // [n_kv_heads][max_ctx][HEAD_DIM] f16
layout(binding = 2) readonly buffer V { uvec4 v_cache[]; };   // same layout as K
layout(binding = 3) writeonly buffer O { float o[]; };        // [C][o_stride]

layout(push_constant) uniform Push {
  uint n_heads;     // query heads
  uint n_kv_heads;  // kv heads, dividing n_heads
  uint max_ctx;     // cache positions per kv head
  uint pos0;        // position of the chunk's first token
  uint n_tokens;    // C, tokens in the chunk (pos0 + C <= max_ctx)
  uint window;      // sliding window in positions, 0 = none
  float scale;      // score scale, usually 1 / sqrt(HEAD_DIM)
  uint q_stride;    // floats between tokens of q (>= n_heads * HEAD_DIM)
  uint o_stride;    // floats between tokens of o
  uint q_offset;    // floats from the q binding's start to token 0, head 0
  uint o_offset;    // floats from the o binding's start to token 0, head 0
} pc;

#include "attn_body.glsl"

// Row r is token r / HEADS (of this workgroup's block), head r % HEADS.
uint row_token(uint r) { return gl_WorkGroupID.y * BQ + r / HEADS; }
uint row_pos(uint r) { return pc.pos0 + row_token(r); }
bool row_live(uint r) { return row_token(r) < pc.n_tokens; }

void main() {
  const uint head0 = gl_WorkGroupID.x * HEADS;
  const uint kv = head0 / (pc.n_heads / pc.n_kv_heads);
  const uint token0 = gl_WorkGroupID.y * BQ;
  const uint pos_first = pc.pos0 + token0;
  const uint pos_last = pc.pos0 + min(token0 + BQ, pc.n_tokens) - 1;
  // The block's first token has the earliest window start.
  const uint k_begin =
      (pc.window == 0 || pos_first + 1 <= pc.window) ? 0 : pos_first + 1 - pc.window;

  const float qscale = pc.scale * LOG2E;
  for (uint i = ATTN_THREAD; i < ROWS * D2; i += THREADS) {
    const uint r = i / D2, u = i % D2;
    vec2 value = vec2(0.0);
    if (row_live(r)) {
      const uint at = pc.q_offset + row_token(r) * pc.q_stride + (head0 + r % HEADS) * HEAD_DIM + 2 * u;
      value = vec2(q[at], q[at + 1]) * qscale;
    }
    q_s[i] = value;
  }
  attend(kv * pc.max_ctx * D8, k_begin, pos_last + 1, pc.window);

  for (uint n = 0; n < PV_ITEMS; ++n) {
    const uint i = ATTN_THREAD + n * THREADS;
    if (i >= ROWS * D4) continue;
    const uint r = i / D4, c = i % D4;
    if (!row_live(r)) continue;
    const vec4 out4 = acc[n] / l_acc[n];
    const uint at = pc.o_offset + row_token(r) * pc.o_stride + (head0 + r % HEADS) * HEAD_DIM + 4 * c;
    o[at] = out4.x;
    o[at + 1] = out4.y;
    o[at + 2] = out4.z;
    o[at + 3] = out4.w;
  }
}
