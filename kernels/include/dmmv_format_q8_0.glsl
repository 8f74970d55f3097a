// The Q8_0 weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN). In the device layout
// (q8_0_device_layout.glsl) a slot's 8 quants are one aligned uvec2.
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 4
#define BLOCKS_PER_ROW(cols) ((cols) / 32)

#include "q8_0_device_layout.glsl"

layout(binding = 0) readonly buffer W { uvec2 w_quants[]; };
layout(binding = 0) readonly buffer WS { uint16_t w_scales[]; };
#else
// The four int8 quants of a word, as floats.
vec4 int8_quad(uint word) {
  const int v = int(word);
  return vec4(float((v << 24) >> 24), float((v << 16) >> 24), float((v << 8) >> 24), float(v >> 24));
}

void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const float d = unpackHalf2x16(uint(w_scales[q8_0_scale_byte(row, pc.cols, block) >> 1])).x;
  const uvec2 q = w_quants[(q8_0_quants_byte(row, pc.cols, block) >> 3) + slot];
  const vec4 a = int8_quad(q.x);
  const vec4 b = int8_quad(q.y);
  const uint k = block * 32 + slot * 8;
  FOR_EACH_COLUMN(c, acc[r * NUM_COLS + c] += d * (dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4))));
}
#endif
