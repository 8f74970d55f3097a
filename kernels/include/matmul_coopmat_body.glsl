// Tiled matmul through cooperative matrices (GL_KHR_cooperative_matrix), Y[c][row] (+)=
// sum_k W[row][k] X[c][k]: the tiling of matmul_body.glsl, with the inner product on the
// matrix units. Each workgroup computes a BM (rows) x BN (tokens) tile of Y; per BK step it
// dequantizes the BM x BK weight tile and loads the BN x BK activation tile into shared
// memory as f16 (the A and B operands must be f16: the 16x16x16 f16 x f16 -> f32 subgroup
// shape is the one NVIDIA and AMD both expose), and each subgroup multiplies them into a
// WM x WN block of 16 x 16 f32 accumulators.
//
// Precision: weights and activations are rounded to f16 (relative 2^-11 each) before the
// products, accumulation is f32. An activation beyond 65504 overflows to inf: a limit of
// every f16 matmul, accepted as llama.cpp's is.
//
// Subgroups: the tile holds SETS = (BM / 16WM) * (BN / 16WN) subgroup blocks and the op
// builder sizes the workgroup as SETS subgroups of the device's subgroup size. Should the
// driver pick a smaller subgroup, the spare subgroups only help load tiles; a larger one
// runs the K loop in more than one pass: slower, never wrong. Subgroups must be full (the
// workgroup a multiple of the subgroup size), which the builder's sizing guarantees.
//
// Shared memory: 2 * (BK + 8) * (BM + BN) bytes of f16 tiles plus 1 KiB of f32 staging per
// subgroup block; the defaults (128, 64, 32, 2, 2) use 23 KiB.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(constant_id = 0) const uint BM = 128;     // weight rows per workgroup, BM % (16 WM) == 0
layout(constant_id = 1) const uint BN = 64;      // tokens per workgroup, BN % (16 WN) == 0
layout(constant_id = 2) const uint BK = 32;      // K step, a multiple of 16
layout(constant_id = 3) const uint WM = 2;       // 16-row tiles per subgroup block
layout(constant_id = 4) const uint WN = 2;       // 16-token tiles per subgroup block
layout(local_size_x_id = 5) in;                  // SETS * subgroup size threads (spec id 5)
layout(constant_id = 6) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)

#include "matmul_tile_io.glsl"

const uint SETS_M = BM / (16 * WM);
const uint SETS = SETS_M * (BN / (16 * WN));
// Tile rows are BK + 8 halves: 16-byte aligned for the matrix loads, and consecutive rows
// start 16 bytes apart in the banks, so the 16 rows of one load do not collide. The tiles are
// f16vec4 arrays so that a thread stores 8 bytes at a time; offsets and strides of the
// matrix loads are then in f16vec4 units.
const uint STRIDE4 = (BK + 8) / 4;

shared f16vec4 w_tile[BM * STRIDE4];  // row-major: weight row r at r * STRIDE4
shared f16vec4 x_tile[BN * STRIDE4];  // token-major: token c at c * STRIDE4 (B column-major)
shared float stage[SETS * 256];       // one 16 x 16 result per subgroup block, for the store

// Moves the fetched registers into the tiles, rounded to f16.
void store_tiles() {
  for (uint i = 0; i < W_PER_THREAD; ++i) {
    const uint g = gl_LocalInvocationID.x + i * gl_WorkGroupSize.x;
    if (g >= W_GROUPS) break;
    const uint at = w_group_row(g) * STRIDE4 + w_group_k(g) / 4;
    w_tile[at] = f16vec4(w_reg[2 * i]);
    w_tile[at + 1] = f16vec4(w_reg[2 * i + 1]);
  }
  for (uint i = 0; i < X_PER_THREAD; ++i) {
    const uint v = gl_LocalInvocationID.x + i * gl_WorkGroupSize.x;
    if (v >= X_VECS) break;
    x_tile[x_vec_token(v) * STRIDE4 + x_vec_k(v) / 4] = f16vec4(x_reg[i]);
  }
}

void main() {
  const uint row0 = gl_WorkGroupID.x * BM;
  const uint col0 = gl_WorkGroupID.y * BN;
  // One pass when the workgroup has SETS subgroups (see above); gl_NumSubgroups is uniform,
  // so every invocation takes the barriers below equally often.
  for (uint first = 0; first < SETS; first += gl_NumSubgroups) {
    const uint set = first + gl_SubgroupID;
    const bool owns_block = set < SETS;        // uniform within the subgroup
    const uint sm = (set % SETS_M) * WM * 16;  // the block's first row within the tile
    const uint sn = (set / SETS_M) * WN * 16;  // its first token within the tile
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> acc[WM * WN];
    for (uint i = 0; i < WM * WN; ++i) {
      acc[i] = coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(0.0);
    }
    fetch_tiles(row0, col0, 0);
    for (uint k0 = 0; k0 < pc.cols; k0 += BK) {
      store_tiles();
      barrier();
      if (k0 + BK < pc.cols) fetch_tiles(row0, col0, k0 + BK);  // in flight during the products
      if (owns_block) {
        for (uint kk = 0; kk < BK; kk += 16) {
          coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a[WM];
          coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b[WN];
          for (uint i = 0; i < WM; ++i) {
            coopMatLoad(a[i], w_tile, (sm + 16 * i) * STRIDE4 + kk / 4, STRIDE4,
                        gl_CooperativeMatrixLayoutRowMajor);
          }
          for (uint j = 0; j < WN; ++j) {
            coopMatLoad(b[j], x_tile, (sn + 16 * j) * STRIDE4 + kk / 4, STRIDE4,
                        gl_CooperativeMatrixLayoutColumnMajor);
          }
          for (uint i = 0; i < WM; ++i) {
            for (uint j = 0; j < WN; ++j) acc[i * WN + j] = coopMatMulAdd(a[i], b[j], acc[i * WN + j]);
          }
        }
      }
      barrier();
    }
    if (!owns_block) continue;
    // Through shared memory, so that edge tiles and the accumulate stay per-element guarded:
    // stage[set * 256 + c * 16 + r] holds row r, token c of one 16 x 16 result.
    for (uint i = 0; i < WM; ++i) {
      for (uint j = 0; j < WN; ++j) {
        coopMatStore(acc[i * WN + j], stage, set * 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        for (uint e = gl_SubgroupInvocationID; e < 256; e += gl_SubgroupSize) {
          matmul_store(row0 + sm + 16 * i + e % 16, col0 + sn + 16 * j + e / 16,
                       stage[set * 256 + e], ACCUMULATE != 0);
        }
        subgroupMemoryBarrierShared();
        subgroupBarrier();
      }
    }
  }
}
