// The slots the cooperative-matrix matmul with K split across workgroups stores its sums in
// (matmul_coopmat_body.glsl, MATMUL_SPLIT_K), read by the dispatches after it that add them
// (matmul_split_reduce.comp and its forms with an epilogue): tile t = (row / BM) * token tiles
// + token / BN holds SPLITS slots of BM x BN sums, [token][row]. The includer declares
// split_sums[] (readonly).
#ifndef PB_SPLIT_SLOTS_GLSL
#define PB_SPLIT_SLOTS_GLSL

#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint SPLITS = 2;
layout(constant_id = 1) const uint BM = 128;  // the split kernel's tile: rows
layout(constant_id = 2) const uint BN = 128;  // and tokens

// Element (row, token) of the split op's output (`ncols` tokens), its splits added in split
// order, so the sum does not depend on which workgroup finished first.
float split_slot_sum(uint row, uint token, uint ncols) {
  const uint token_tiles = (ncols + BN - 1) / BN;
  const uint tile = (row / BM) * token_tiles + token / BN;
  const uint at = tile * SPLITS * BM * BN + (token % BN) * BM + row % BM;
  float sum = 0.0;
  [[unroll]] for (uint z = 0; z < SPLITS; ++z) sum += split_sums[at + z * BM * BN];
  return sum;
}

#endif  // PB_SPLIT_SLOTS_GLSL
