// The Q6_K weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN).
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 16
#define SLOTS_PER_BLOCK 16
#define BLOCKS_PER_ROW(cols) ((cols) / 256)

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 105 half-words per block
#else
// Four consecutive bytes starting at an even byte offset of the block.
uint bytes4(uint base, uint byte_offset) {
  const uint h = base + (byte_offset >> 1);
  return uint(w[h]) | (uint(w[h + 1]) << 16);
}

float scale_at(uint base, uint index) {  // int8 scales[index], scales start at byte 192
  const uint byte_offset = 192 + index;
  const uint half_word = uint(w[base + (byte_offset >> 1)]);
  const uint b = (byte_offset & 1u) != 0 ? (half_word >> 8) : (half_word & 0xffu);
  return float(int(b << 24) >> 24);
}

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint base = (row * BLOCKS_PER_ROW(pc.cols) + block) * 105;
  const float d = unpackHalf2x16(uint(w[base + 104])).x;
  const uint n = slot >> 3;          // which 128-weight half
  const uint l0 = (slot & 7u) * 4;   // first position l within the half (0..28)
  const uint ql_a = bytes4(base, n * 64 + l0);       // ql[l], low nibble -> +0, high -> +64
  const uint ql_b = bytes4(base, n * 64 + l0 + 32);  // ql[l+32], low -> +32, high -> +96
  const uint qh = bytes4(base, 128 + n * 32 + l0);   // 2 bits each for +0, +32, +64, +96
  const uint is = l0 / 16;
  const float s0 = d * scale_at(base, n * 8 + is);
  const float s1 = d * scale_at(base, n * 8 + is + 2);
  const float s2 = d * scale_at(base, n * 8 + is + 4);
  const float s3 = d * scale_at(base, n * 8 + is + 6);
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
