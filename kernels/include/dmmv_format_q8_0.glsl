// The Q8_0 weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN).
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 4
#define BLOCKS_PER_ROW(cols) ((cols) / 32)

layout(binding = 0) readonly buffer W { uint16_t w[]; };  // 17 half-words per block
#else
vec2 int8_pair(uint16_t h) {
  const int v = int(uint(h));
  return vec2(float((v << 24) >> 24), float((v << 16) >> 24));
}

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint base = (row * BLOCKS_PER_ROW(pc.cols) + block) * 17;
  const float d = unpackHalf2x16(uint(w[base])).x;
  const uint q = base + 1 + slot * 4;
  const vec4 a = vec4(int8_pair(w[q]), int8_pair(w[q + 1]));
  const vec4 b = vec4(int8_pair(w[q + 2]), int8_pair(w[q + 3]));
  const uint k = block * 32 + slot * 8;
  FOR_EACH_COLUMN(c, acc[r * NUM_COLS + c] += d * (dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4))));
}
#endif
