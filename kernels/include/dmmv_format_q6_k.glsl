// The Q6_K weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN). In the device layout (q6_k_device_layout.glsl)
// a block's body starts on 16 bytes, so a slot's ql and qh bytes are aligned words.
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 16
#define SLOTS_PER_BLOCK 16
#define BLOCKS_PER_ROW(cols) ((cols) / 256)

#include "q6_k_device_layout.glsl"

// The rows bound, which place the scales of a tensor's last group (q6_k_device_layout.glsl):
// the dense DMMV's slice. The MoE DMMV, whose experts are whole groups, defines it as ~0u.
#ifndef Q6_K_BOUND_ROWS
#define Q6_K_BOUND_ROWS pc.rows
#endif

layout(binding = 0) readonly buffer W { uint w_words[]; };      // the device layout, as words
layout(binding = 0) readonly buffer WD { uint16_t w_halves[]; };  // and as 16-bit units
#else
// int8 scales[index] of the block whose body starts at word `body`.
float scale_at(uint body, uint index) {
  const uint word = w_words[body + 48u + (index >> 2)];  // the scales start at byte 192
  return float(int(word << (24u - 8u * (index & 3u))) >> 24);
}

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint body = q6_k_body_byte(row, pc.cols, block) >> 2;  // in words
  const float d = unpackHalf2x16(uint(w_halves[q6_k_d_byte(row, pc.cols, block, Q6_K_BOUND_ROWS) >> 1])).x;
  const uint n = slot >> 3;          // which 128-weight half
  const uint l0 = (slot & 7u) * 4;   // first position l within the half (0..28)
  const uint ql_a = w_words[body + (n * 64 + l0) / 4];       // ql[l], low nibble -> +0, high -> +64
  const uint ql_b = w_words[body + (n * 64 + l0 + 32) / 4];  // ql[l+32], low -> +32, high -> +96
  const uint qh = w_words[body + (128 + n * 32 + l0) / 4];   // 2 bits each for +0, +32, +64, +96
  const uint is = l0 / 16;
  const float s0 = d * scale_at(body, n * 8 + is);
  const float s1 = d * scale_at(body, n * 8 + is + 2);
  const float s2 = d * scale_at(body, n * 8 + is + 4);
  const float s3 = d * scale_at(body, n * 8 + is + 6);
  vec4 q0, q1, q2, q3;  // weights at quarter offsets 0, 32, 64, 96 for l0..l0+3
  for (int i = 0; i < 4; ++i) {
    const uint sh = 8 * i;
    const uint a = (ql_a >> sh) & 0xffu, b = (ql_b >> sh) & 0xffu, h = (qh >> sh) & 0xffu;
    q0[i] = float(int((a & 0xfu) | ((h & 3u) << 4)) - 32);
    q1[i] = float(int((b & 0xfu) | (((h >> 2) & 3u) << 4)) - 32);
    q2[i] = float(int((a >> 4) | (((h >> 4) & 3u) << 4)) - 32);
    q3[i] = float(int((b >> 4) | (((h >> 6) & 3u) << 4)) - 32);
  }
  const uint k = block * 256 + n * 128 + l0;
  FOR_EACH_COLUMN(c, acc[r * NUM_COLS + c] += s0 * dot(q0, x_at(c, k)) + s1 * dot(q1, x_at(c, k + 32)) +
                                               s2 * dot(q2, x_at(c, k + 64)) + s3 * dot(q3, x_at(c, k + 96)));
}
#endif
