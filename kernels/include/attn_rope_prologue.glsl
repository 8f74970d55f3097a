// The front of attn_decode_rope: the query token's per-head q/k RMSNorm (QK_NORM), its RoPE at
// pc.pos and its KV write, computed by the attention workgroup instead of a qk_norm_rope_kv
// dispatch before it. The arithmetic is qk_norm_rope_body.glsl's: the same pair units (NORMAL
// (2u, 2u + 1), NEOX (u, u + rope_dims / 2), pass-through pairs past rope_dims), the same
// angles (rope_angle.glsl), the norm as (x * scale) * w; only the order in which a head's
// squares are summed differs (butterflies over its pair units here), so results agree to float
// rounding, not bit for bit.
//
// Rows of the prologue: the workgroup's HEADS q heads, then (own_key) the kv head's k. Pair
// unit w of the (HEADS + 1) * D2 is row w / D2, unit w % D2.
//
// Shared memory beyond attn_body.glsl's, in bytes (attention_rope_shared_bytes must agree):
//   rp_slots     (HEADS + 1) * HEAD_DIM / 2 * 4
//   rp_cos_sin   HEAD_DIM / 2 * 8
//   rp_k         HEAD_DIM * 4
//   own_k_s, own_v_s (attn_body.glsl, ATTN_OWN_KEY)   2 * HEAD_DIM * 2
//
// Included by attn_decode_main.glsl after attn_body.glsl, with ROPE_PROLOGUE's push constants.
#ifndef PB_ATTN_ROPE_PROLOGUE_GLSL
#define PB_ATTN_ROPE_PROLOGUE_GLSL

layout(binding = 4) readonly buffer KNew { float k_new[]; };    // the token's projected k, from pc.k_offset
layout(binding = 5) readonly buffer VNew { float v_new[]; };    // its v, from pc.v_offset
layout(binding = 6) readonly buffer QNorm { float q_norm[]; };  // HEAD_DIM weights (QK_NORM)
layout(binding = 7) readonly buffer KNorm { float k_norm[]; };  // HEAD_DIM weights (QK_NORM)
// The caches again, for the one row this dispatch writes: bindings 1 and 2 stay readonly, so
// the attention's loads take the same path as attn_decode's, and no invocation reads row pos.
layout(binding = 8) writeonly buffer KRow { uvec4 k_cache_row[]; };
layout(binding = 9) writeonly buffer VRow { uvec4 v_cache_row[]; };

layout(constant_id = 7) const int QK_NORM = 0;  // 1: RMSNorm each q and k head first
layout(constant_id = 8) const int ADD_ONE = 0;  // 1: norm weight is 1 + w (Gemma)
layout(constant_id = 9) const int NEOX = 0;     // pb::RopeStyle: 0 NORMAL, 1 NEOX

#include "rope_angle.glsl"

const uint RP_UNITS = (HEADS + 1) * D2;
const uint RP_ITEMS = (RP_UNITS + THREADS - 1) / THREADS;  // pair units per invocation
// Invocations that share a row (both powers of two), and each one's items in it: a row is one
// item of D2 invocations, or, in workgroups narrower than D2, D2 / THREADS items of all.
const uint RP_GROUP = THREADS < D2 ? THREADS : D2;
const uint RP_ROW_ITEMS = D2 / RP_GROUP;
const uint RP_SUMS = RP_ITEMS / RP_ROW_ITEMS;  // rows whose sum of squares an invocation takes part in
const uint OWN_ITEMS = (D8 + THREADS - 1) / THREADS;  // words of the own K/V row per invocation

#include "lane_group_reduce.glsl"
// Where a row spans subgroups, the subgroups' shares of its sum of squares: RP_SUMS *
// (THREADS / lanes) of them, at most RP_UNITS for subgroups of 8 or more.
shared float rp_slots[RP_UNITS];
shared vec2 rp_cos_sin[D2];         // the rotation of pair unit u at pc.pos
shared float rp_k[HEAD_DIM];        // the normed, rotated k before its f16 packing

// Dimensions of pair unit u.
uvec2 rp_dims(uint u) {
  const uint rotated = pc.rope_dims / 2;
  return NEOX != 0 && u < rotated ? uvec2(u, u + rotated) : uvec2(2 * u, 2 * u + 1);
}

// Branches, not ?:, so a q row never forms an address into k_new (the bindings differ in size).
float rp_load(uint row, uint head0, uint kv, uint d) {
  if (row < HEADS) return q[pc.q_offset + (head0 + row) * HEAD_DIM + d];
  return k_new[pc.k_offset + kv * HEAD_DIM + d];
}

float rp_norm_weight(uint row, uint d) {
  const float w = row < HEADS ? q_norm[d] : k_norm[d];
  return ADD_ONE != 0 ? 1.0 + w : w;
}

// Fills q_s with the workgroup's q heads (normed, rotated, prescaled by qscale) and, with
// own_key, own_k_s / own_v_s with the token's K/V row as the cache stores it; writes_row also
// stores that row in the cache. Every invocation calls it (it has barriers).
void rope_prologue(uint head0, uint kv, bool own_key, bool writes_row, float qscale) {
  // With the norm, units by subgroup-major index, so that the invocations sharing a row are
  // consecutive lanes (lane_group_reduce.glsl). Without it, the attention's own numbering
  // (attn_thread.glsl): Llama's prologue numbered by subgroup-major index made llama3-8b decode
  // at 3000 keys 1.4% slower on an H200 (docs/GPU_FIGURES.md). Either way the barriers below
  // hand the results over.
  const uint t = QK_NORM != 0 ? subgroup_major_index() : ATTN_THREAD;
  const uint rotated = pc.rope_dims / 2;
  const uint rows = own_key ? HEADS + 1 : HEADS;
  vec2 value[RP_ITEMS];
  for (uint n = 0; n < RP_ITEMS; ++n) {
    const uint w = t + n * THREADS, row = w / D2;
    const uvec2 d = rp_dims(w % D2);
    value[n] = row < rows ? vec2(rp_load(row, head0, kv, d.x), rp_load(row, head0, kv, d.y)) : vec2(0.0);
  }
  // The norm weights now, not after the row sums: their loads overlap the values' and the sums.
  // A loop of its own: loading them in the loop above, behind QK_NORM, made Llama's (no norm)
  // attention slower (llama3-8b decode at 3000 keys -1% on an H200).
  vec2 weight[RP_ITEMS];
  if (QK_NORM != 0) {
    for (uint n = 0; n < RP_ITEMS; ++n) {
      const uint w = t + n * THREADS, row = w / D2;
      const uvec2 d = rp_dims(w % D2);
      weight[n] = row < rows ? vec2(rp_norm_weight(row, d.x), rp_norm_weight(row, d.y)) : vec2(1.0);
    }
  }
  // The token's V row too (its words i = t, t + THREADS, ... as own_k_s holds them), so that the
  // own-key step at the end waits on no memory.
  vec4 v_words[2 * OWN_ITEMS];
  if (own_key) {
    for (uint n = 0; n < OWN_ITEMS; ++n) {
      const uint i = t + n * THREADS;
      if (i >= D8) break;
      const uint at = pc.v_offset + kv * HEAD_DIM + 8 * i;
      v_words[2 * n] = vec4(v_new[at], v_new[at + 1], v_new[at + 2], v_new[at + 3]);
      v_words[2 * n + 1] = vec4(v_new[at + 4], v_new[at + 5], v_new[at + 6], v_new[at + 7]);
    }
  }
  // The angles while the loads above are in flight.
  const vec2 ratio = vec2(pc.freq_ratio_hi, pc.freq_ratio_lo);
  for (uint u = t; u < rotated; u += THREADS) rp_cos_sin[u] = rope_cos_sin(ratio, u, float(pc.pos));
  // Sum s of squares: the row of items s * RP_ROW_ITEMS .. + RP_ROW_ITEMS - 1, whose D2 units
  // RP_GROUP consecutive invocations hold.
  float row_sum[RP_SUMS];
  if (QK_NORM != 0) {
    for (uint s = 0; s < RP_SUMS; ++s) {
      row_sum[s] = 0.0;
      for (uint i = 0; i < RP_ROW_ITEMS; ++i) row_sum[s] += dot(value[s * RP_ROW_ITEMS + i], value[s * RP_ROW_ITEMS + i]);
    }
    PB_LANE_GROUP_REDUCE_EACH(row_sum, RP_SUMS, RP_GROUP, float, lane_group_add, rp_slots)
  }
  barrier();  // the angles are in

  for (uint n = 0; n < RP_ITEMS; ++n) {
    const uint w = t + n * THREADS, row = w / D2, u = w % D2;
    if (row >= rows) continue;
    const uvec2 d = rp_dims(u);
    vec2 v = value[n];
    if (QK_NORM != 0) v = (v * inversesqrt(row_sum[n / RP_ROW_ITEMS] / float(HEAD_DIM) + pc.eps)) * weight[n];
    if (u < rotated) {
      const vec2 cs = rp_cos_sin[u];
      v = vec2(v.x * cs.x - v.y * cs.y, v.x * cs.y + v.y * cs.x);
    }
    if (row < HEADS) {  // q_s holds dims (2i, 2i + 1) of a row at r * D2 + i
      q_s[row * D2 + d.x / 2][d.x % 2] = v.x * qscale;
      q_s[row * D2 + d.y / 2][d.y % 2] = v.y * qscale;
    } else {
      rp_k[d.x] = v.x;
      rp_k[d.y] = v.y;
    }
  }
  barrier();  // rp_k is complete

  if (own_key) {
    for (uint n = 0; n < OWN_ITEMS; ++n) {
      const uint i = t + n * THREADS;
      if (i >= D8) break;
      uvec4 kw;
      for (uint j = 0; j < 4; ++j) {
        const uint d = 8 * i + 2 * j;
        kw[j] = packHalf2x16(vec2(rp_k[d], rp_k[d + 1]));
      }
      const uvec4 vw = uvec4(packHalf2x16(v_words[2 * n].xy), packHalf2x16(v_words[2 * n].zw),
                             packHalf2x16(v_words[2 * n + 1].xy), packHalf2x16(v_words[2 * n + 1].zw));
      own_k_s[i] = kw;
      own_v_s[i] = vw;
      if (writes_row) {  // the words this dispatch attends to are the words later tokens read
        const uint row_at = (kv * pc.max_ctx + pc.pos) * D8 + i;
        k_cache_row[row_at] = kw;
        v_cache_row[row_at] = vw;
      }
    }
  }
  barrier();  // own_key_into_tile reads own_k_s / own_v_s next, before any barrier of attend
}

#endif  // PB_ATTN_ROPE_PROLOGUE_GLSL
