// Tiled matmul through cooperative matrices (GL_KHR_cooperative_matrix), Y[c][row] (+)=
// sum_k W[row][k] X[c][k]: the tiling of matmul_body.glsl, with the inner product on the
// matrix units. Each workgroup computes a BM (rows) x BN (tokens) tile of Y; per BK step it
// dequantizes the BM x BK weight tile and loads the BN x BK activation tile into shared
// memory as f16 (the A and B operands must be f16: the 16x16x16 f16 x f16 -> f32 subgroup
// shape is the one NVIDIA and AMD both expose), and each subgroup multiplies them into a
// 32 x 32 block of Y held as four 16 x 16 f32 accumulators.
//
// The four accumulators are named variables, not an array indexed in loops: NVIDIA's driver
// (580) keeps arrays of cooperative matrices in memory even when the loops are marked
// [[unroll]], which measured 2-3x slower on an H200. Hence the fixed 32 x 32 block per
// subgroup; the workgroup tile (BM, BN, BK) stays a specialization.
//
// Precision: weights and activations are rounded to f16 (relative 2^-11 each) before the
// products, accumulation is f32. An activation beyond 65504 overflows to inf: a limit of
// every f16 matmul, accepted as llama.cpp's is.
//
// Subgroups: the tile holds BLOCKS = (BM / 32) * (BN / 32) subgroup blocks and the op builder
// sizes the workgroup as BLOCKS subgroups of the device's subgroup size. Should the driver
// pick a smaller subgroup, the spare subgroups only help load tiles; a larger one runs the K
// loop in more than one pass: slower, never wrong. Subgroups must be full (the workgroup a
// multiple of the subgroup size), which the builder's sizing guarantees.
//
// Shared memory: 2 * (BK + 8) * (BM + BN) bytes of f16 tiles plus 1 KiB of f32 staging per
// subgroup block; the defaults (128, 128, 32) use 36 KiB. Limits: one shared tile per operand
// (the next step waits in registers), so a barrier pair per BK step; results leave through
// shared memory rather than straight from the accumulators, which costs little once per tile.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint BM = 128;     // weight rows per workgroup, a multiple of 32
layout(constant_id = 1) const uint BN = 128;     // tokens per workgroup, a multiple of 32
layout(constant_id = 2) const uint BK = 32;      // K step, a multiple of 16
layout(local_size_x_id = 5) in;                  // BLOCKS * subgroup size threads (spec id 5)
layout(constant_id = 6) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)

#include "matmul_tile_io.glsl"

const uint BLOCKS_M = BM / 32;
const uint BLOCKS = BLOCKS_M * (BN / 32);
// Tile rows are BK + 8 halves: 16-byte aligned for the matrix loads, and consecutive rows
// start 16 bytes apart in the banks, so the 16 rows of one load do not collide. The tiles are
// f16vec4 arrays so that a thread stores 8 bytes at a time; offsets and strides of the
// matrix loads are then in f16vec4 units.
const uint STRIDE4 = (BK + 8) / 4;

shared f16vec4 w_tile[BM * STRIDE4];  // row-major: weight row r at r * STRIDE4
shared f16vec4 x_tile[BN * STRIDE4];  // token-major: token c at c * STRIDE4 (B column-major)
shared float stage[BLOCKS * 256];     // one 16 x 16 result per subgroup block, for the store

// Moves the fetched registers into the tiles, rounded to f16.
void store_tiles() {
  [[unroll]] for (uint i = 0; i < W_PER_THREAD; ++i) {
    const uint g = gl_LocalInvocationID.x + i * gl_WorkGroupSize.x;
    if (g >= W_GROUPS) break;
    const uint at = w_group_row(g) * STRIDE4 + w_group_k(g) / 4;
    w_tile[at] = f16vec4(w_reg[2 * i]);
    w_tile[at + 1] = f16vec4(w_reg[2 * i + 1]);
  }
  [[unroll]] for (uint i = 0; i < X_PER_THREAD; ++i) {
    const uint v = gl_LocalInvocationID.x + i * gl_WorkGroupSize.x;
    if (v >= X_VECS) break;
    x_tile[x_vec_token(v) * STRIDE4 + x_vec_k(v) / 4] = f16vec4(x_reg[i]);
  }
}

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

// Writes one 16 x 16 result at (row, token) through the block's staging tile, so that edge
// tiles and the accumulate stay guarded per element: stage[block * 256 + c * 16 + r] holds
// row r, token c.
void store_result(ACC result, uint block, uint row, uint token) {
  coopMatStore(result, stage, block * 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  for (uint e = gl_SubgroupInvocationID; e < 256; e += gl_SubgroupSize) {
    matmul_store(row + e % 16, token + e / 16, stage[block * 256 + e], ACCUMULATE != 0);
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

void main() {
  const uint row0 = gl_WorkGroupID.x * BM;
  const uint col0 = gl_WorkGroupID.y * BN;
  // One pass when the workgroup has BLOCKS subgroups (see above); gl_NumSubgroups is uniform,
  // so every invocation takes the barriers below equally often.
  for (uint first = 0; first < BLOCKS; first += gl_NumSubgroups) {
    const uint block = first + gl_SubgroupID;
    const bool owns_block = block < BLOCKS;       // uniform within the subgroup
    const uint bm = (block % BLOCKS_M) * 32;      // the block's first row within the tile
    const uint bn = (block / BLOCKS_M) * 32;      // its first token within the tile
    ACC c00 = ACC(0.0), c01 = ACC(0.0), c10 = ACC(0.0), c11 = ACC(0.0);  // c<row half><token half>
    fetch_tiles(row0, col0, 0);
    for (uint k0 = 0; k0 < pc.cols; k0 += BK) {
      store_tiles();
      barrier();
      if (k0 + BK < pc.cols) fetch_tiles(row0, col0, k0 + BK);  // in flight during the products
      if (owns_block) {
        for (uint kk = 0; kk < BK; kk += 16) {
          MAT_A a0, a1;
          MAT_B b0, b1;
          coopMatLoad(a0, w_tile, bm * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
          coopMatLoad(a1, w_tile, (bm + 16) * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
          coopMatLoad(b0, x_tile, bn * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutColumnMajor);
          coopMatLoad(b1, x_tile, (bn + 16) * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutColumnMajor);
          c00 = coopMatMulAdd(a0, b0, c00);
          c01 = coopMatMulAdd(a0, b1, c01);
          c10 = coopMatMulAdd(a1, b0, c10);
          c11 = coopMatMulAdd(a1, b1, c11);
        }
      }
      barrier();
    }
    if (!owns_block) continue;
    store_result(c00, block, row0 + bm, col0 + bn);
    store_result(c01, block, row0 + bm, col0 + bn + 16);
    store_result(c10, block, row0 + bm + 16, col0 + bn);
    store_result(c11, block, row0 + bm + 16, col0 + bn + 16);
  }
}
