// The F32 weight format as the DMMV bodies see it (dmmv_body.glsl, moe_dmmv_body.glsl):
// slot geometry and the weight binding (included before the body, with
// DMMV_FORMAT_DECLARATIONS_ONLY defined), then accumulate_slot() (included after it; the body
// declares acc, pc, x_at and FOR_EACH_COLUMN).
#ifdef DMMV_FORMAT_DECLARATIONS_ONLY
#define WEIGHTS_PER_SLOT 8
#define SLOTS_PER_BLOCK 1
#define BLOCKS_PER_ROW(cols) ((cols) / 8)

layout(binding = 0) readonly buffer W { vec4 w[]; };
#else
void accumulate_slot(uint r, uint row, uint block, uint slot) {
  const uint at = (row * BLOCKS_PER_ROW(pc.cols) + block) * 2;
  const vec4 a = w[at], b = w[at + 1];
  const uint k = block * 8;
  FOR_EACH_COLUMN(c, acc[r * NUM_COLS + c] += dot(a, x_at(c, k)) + dot(b, x_at(c, k + 4)));
}
#endif
