// The Q4_K weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and active_cols).
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 16
#define SLOTS_PER_BLOCK 16
#define BLOCKS_PER_ROW(cols) ((cols) / 256)

layout(binding = 0) readonly buffer W { uint w[]; };  // 36 words per block

// Scale and min of sub-block `is` (ggml's get_scale_min_k4) from the three scale words.
void scale_min(uint is, uvec3 s, out float sc, out float m) {
  // Byte k of the 12 scale bytes.
#define SBYTE(k) ((s[(k) >> 2] >> (8 * ((k) & 3))) & 0xffu)
  if (is < 4) {
    sc = float(SBYTE(is) & 63u);
    m = float(SBYTE(is + 4) & 63u);
  } else {
    sc = float((SBYTE(is + 4) & 0xfu) | ((SBYTE(is - 4) >> 6) << 4));
    m = float((SBYTE(is + 4) >> 4) | ((SBYTE(is) >> 6) << 4));
  }
#undef SBYTE
}
#else
void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint base = (row * BLOCKS_PER_ROW(pc.cols) + block) * 36;
  const vec2 dm = unpackHalf2x16(w[base]);
  const uvec3 sc_words = uvec3(w[base + 1], w[base + 2], w[base + 3]);
  const uint j = slot >> 2;            // group of 64 weights
  const uint l0 = (slot & 3u) * 8;     // first byte within the group's 32
  const uint q0 = w[base + 4 + j * 8 + (l0 >> 2)];
  const uint q1 = w[base + 4 + j * 8 + (l0 >> 2) + 1];
  float sc_lo, m_lo, sc_hi, m_hi;
  scale_min(2 * j, sc_words, sc_lo, m_lo);
  scale_min(2 * j + 1, sc_words, sc_hi, m_hi);
  const vec4 lo_a = vec4(q0 & 0xfu, (q0 >> 8) & 0xfu, (q0 >> 16) & 0xfu, (q0 >> 24) & 0xfu);
  const vec4 lo_b = vec4(q1 & 0xfu, (q1 >> 8) & 0xfu, (q1 >> 16) & 0xfu, (q1 >> 24) & 0xfu);
  const vec4 hi_a = vec4((q0 >> 4) & 0xfu, (q0 >> 12) & 0xfu, (q0 >> 20) & 0xfu, (q0 >> 28) & 0xfu);
  const vec4 hi_b = vec4((q1 >> 4) & 0xfu, (q1 >> 12) & 0xfu, (q1 >> 20) & 0xfu, (q1 >> 28) & 0xfu);
  const float d_lo = dm.x * sc_lo, min_lo = dm.y * m_lo;
  const float d_hi = dm.x * sc_hi, min_hi = dm.y * m_hi;
  const uint k = block * 256 + j * 64 + l0;
  const uint ncols = active_cols();
  for (int c = 0; c < NUM_COLS; ++c) {
    if (uint(c) >= ncols) break;
    const vec4 xa = x_at(c, k), xb = x_at(c, k + 4);
    const vec4 ya = x_at(c, k + 32), yb = x_at(c, k + 36);
    const float q_lo = dot(lo_a, xa) + dot(lo_b, xb);
    const float s_lo = dot(xa, vec4(1.0)) + dot(xb, vec4(1.0));
    const float q_hi = dot(hi_a, ya) + dot(hi_b, yb);
    const float s_hi = dot(ya, vec4(1.0)) + dot(yb, vec4(1.0));
    acc[r * NUM_COLS + c] += d_lo * q_lo - min_lo * s_lo + d_hi * q_hi - min_hi * s_hi;
  }
}
#endif
