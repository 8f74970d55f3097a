// DMMV over Q8_0 weights for 8 or 16 columns on the matrix units' int8 products
// (dmmv_int8mat_body.glsl). In the device layout (q8_0_device_layout.glsl) a row's quants are
// contiguous and its scales follow them, so a step's quants of a row are whole uvec4s and its
// scales one to four words.
// Included by dmmv_int8mat_q8_0.comp and, with INT8MAT_SPLIT_K, dmmv_int8mat_q8_0_split.comp.

#include "dmmv_intdot_common.glsl"
#include "q8_0_device_layout.glsl"

layout(binding = 0) readonly buffer W { uvec4 w_quants[]; };  // in the device layout
layout(binding = 0) readonly buffer WS { uint w_scale_words[]; };

#define A_WORDS_PER_ROW_BLOCK 2  // two uvec4s of quants per row and block
#define WEIGHT_MINS 0            // w = d q: the scale tables hold d alone

#include "dmmv_int8mat_body.glsl"

// Lane p of the subgroup's ROWS x 2 STEP_BLOCKS uvec4s: row p / (2 STEP_BLOCKS), 16-byte half
// p % (2 STEP_BLOCKS) of the step, so consecutive lanes read along a row.
void fetch_weights(uint row0, uint step, out uvec4 raw[A_WORDS]) {
  [[unroll]] for (uint n = 0; n < A_WORDS; ++n) {
    const uint p = gl_SubgroupInvocationID + 32 * n, row = p / (2 * STEP_BLOCKS), h = p % (2 * STEP_BLOCKS);
    raw[n] = w_quants[(q8_0_quants_byte(row0 + row, pc.cols, step * STEP_BLOCKS) >> 4) + h];
  }
}

void store_weights(const uvec4 raw[A_WORDS], uint base) {
  [[unroll]] for (uint n = 0; n < A_WORDS; ++n) {
    const uint p = gl_SubgroupInvocationID + 32 * n, row = p / (2 * STEP_BLOCKS), h = p % (2 * STEP_BLOCKS);
    a_stage[base + ((row / 16) * STEP_BLOCKS + h / 2) * A_TILE4 + (row % 16) * TILE_LINE4 + h % 2] = raw[n];
  }
}

// The step's f16 scales, two to a word (on 4 bytes: rows start on 16, steps are even blocks).
uvec4 fetch_scales(uint row, uint step) {
  const uint first = q8_0_scale_byte(row, pc.cols, step * STEP_BLOCKS) >> 2;
  uvec4 h = uvec4(0u);
  [[unroll]] for (uint j = 0; j < STEP_BLOCKS / 2; ++j) h[j] = w_scale_words[first + j];
  return h;
}

void store_scales(uvec4 raw, uint step, uint at) {
  [[unroll]] for (uint j = 0; j < STEP_PAIRS; ++j) row_table[at + j] = unpackHalf2x16(raw[j]);  // blocks 2j, 2j + 1
}
