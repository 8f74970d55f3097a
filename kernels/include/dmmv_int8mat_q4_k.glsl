// DMMV over Q4_K weights for 8 or 16 columns on the matrix units' int8 products
// (dmmv_int8mat_body.glsl). A lane loads nibble uvec4s (16 bytes of a row: the same 16 weights
// of sub-blocks 2j and 2j + 1; dmmv_intdot_q4_k.glsl has the layout) and stages their low and
// their high nibbles into the two sub-blocks' tiles, one to a byte. The sub-block's min comes
// off per element with the activations' block sum (quantize_x stores d sum q):
//   sum w x = d sc dx sum(q qx) - dmin m (dx sum qx).
// Included by dmmv_int8mat_q4_k.comp and, with INT8MAT_SPLIT_K, dmmv_int8mat_q4_k_split.comp.

#include "dmmv_intdot_common.glsl"
#include "q4_k_scale_min.glsl"

layout(binding = 0) readonly buffer W { uvec4 w[]; };  // 9 uvec4 per block of 256

#define A_WORDS_PER_ROW_BLOCK 1  // one nibble uvec4 per row and block (two sub-blocks' halves)
#define WEIGHT_MINS 1            // w = mul q - min

#include "dmmv_int8mat_body.glsl"

// The uvec4 index of the block of 256 that holds the step (steps of at most 8 blocks).
uint q4k_block_base(uint row, uint step) { return (row * (pc.cols / 256u) + (step * STEP_BLOCKS) / 8u) * 9u; }

// Lane p of the subgroup's ROWS x STEP_BLOCKS nibble uvec4s: row p / STEP_BLOCKS, nibble uvec4
// q = p % STEP_BLOCKS of the step (half q % 2 of sub-block pair q / 2).
void fetch_weights(uint row0, uint step, out uvec4 raw[A_WORDS]) {
  [[unroll]] for (uint n = 0; n < A_WORDS; ++n) {
    const uint p = gl_SubgroupInvocationID + 32 * n, row = p / STEP_BLOCKS, q = p % STEP_BLOCKS;
    raw[n] = w[q4k_block_base(row0 + row, step) + 1u + ((step * STEP_BLOCKS + q) & 7u)];
  }
}

void store_weights(const uvec4 raw[A_WORDS], uint base) {
  [[unroll]] for (uint n = 0; n < A_WORDS; ++n) {
    const uint p = gl_SubgroupInvocationID + 32 * n, row = p / STEP_BLOCKS, q = p % STEP_BLOCKS;
    const uint at = base + ((row / 16) * STEP_BLOCKS + (q & ~1u)) * A_TILE4 + (row % 16) * TILE_LINE4 + (q & 1u);
    a_stage[at] = raw[n] & uvec4(0x0f0f0f0fu);                // sub-block 2j
    a_stage[at + A_TILE4] = (raw[n] >> 4) & uvec4(0x0f0f0f0fu);  // sub-block 2j + 1
  }
}

uvec4 fetch_scales(uint row, uint step) { return w[q4k_block_base(row, step)]; }

void store_scales(uvec4 raw, uint step, uint at) {
  const vec2 d_dmin = unpackHalf2x16(raw.x);
  [[unroll]] for (uint j = 0; j < STEP_PAIRS; ++j) {
    const uint b = (step * STEP_BLOCKS + 2 * j) & 7u;  // the pair's first sub-block in its block of 256
    row_table[at + j] = vec4(q4k_scale_min(b, raw) * d_dmin, q4k_scale_min(b + 1u, raw) * d_dmin);
  }
}
