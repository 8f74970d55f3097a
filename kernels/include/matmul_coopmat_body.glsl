// Tiled matmul through cooperative matrices (GL_KHR_cooperative_matrix), Y[c][row] (+)=
// sum_k W[row][k] X[c][k]: the tiling of matmul_body.glsl, with the inner product on the
// matrix units. Each workgroup computes a BM (rows) x BN (tokens) tile of Y; per BK step it
// dequantizes the BM x BK weight tile and loads the BN x BK activation tile into shared
// memory as f16 (the A and B operands must be f16: the 16x16x16 f16 x f16 -> f32 subgroup
// shape is the one NVIDIA and AMD both expose), and each subgroup multiplies them into a
// WM x WN block of Y (32 or 64 each) held as up to sixteen 16 x 16 f32 accumulators.
//
// The accumulators are named variables, not an array indexed in loops: NVIDIA's driver (580)
// keeps arrays of cooperative matrices in memory even when the loops are marked [[unroll]],
// which measured 2-3x slower on an H200. The block's shape is a specialization: the products
// of the 64-wide halves sit behind WM > 32 and WN > 32, which the driver folds away.
//
// Why the block: per 16-deep slice a subgroup loads WM/16 + WN/16 matrices from shared
// memory for (WM/16) * (WN/16) products, so a 64 x 32 block needs fewer shared-memory reads per
// product than a 32 x 32 one. STAGES = 2 keeps two shared tiles per operand: step s + 1 is
// stored into one while step s is multiplied from the other, so a step needs one barrier, not
// two. Which tiling wins depends on the weights and the shape: the matmul_coopmat_tuning
// benchmarks measure them (docs/GPU_FIGURES.md, also for what bounds the kernel: the loads, the
// decode and the products of a step follow one another rather than overlap).
//
// Precision: weights and activations are rounded to f16 (relative 2^-11 each) before the
// products, accumulation is f32. A weight source may decode its groups straight to f16
// (defining MATMUL_DECODE_F16 and matmul_decode_f16, as matmul_weights_q4_k32.glsl does); the
// others decode 8 weights to float and convert. Either way the tiles hold every four
// consecutive k in f16_bytes.glsl's k_order (0, 2, 1, 3), the activations as well, which leaves
// the sums unchanged. An activation beyond 65504 overflows to inf: a limit of every f16
// matmul, accepted as llama.cpp's is.
//
// Subgroups: the tile holds BLOCKS = (BM / WM) * (BN / WN) subgroup blocks and the op builder
// sizes the workgroup as BLOCKS subgroups of the device's subgroup size. Should the driver
// pick a smaller subgroup, the spare subgroups only help load tiles; a larger one runs the K
// loop in more than one pass: slower, never wrong. Subgroups must be full (the workgroup a
// multiple of the subgroup size), which the builder's sizing guarantees.
//
// Shared memory: STAGES * 2 * (BK + 8) * (BM + BN) bytes of f16 tiles plus 1 KiB of f32
// staging per subgroup block (CoopmatTiling::shared_bytes). Results of whole 16 x 16 tiles go
// straight from the accumulators to y; the staging serves the tiles at the edges of the
// problem, whose elements are guarded one by one.
//
// K split (MATMUL_SPLIT_K, the _split kernels): with few tokens (prefill in chunks of 32) a
// matrix has few tiles, and each workgroup's chain of K steps is the dispatch's time (2048 x
// 4096 at 32 tokens: 16 workgroups, 64 steps, 134 us on an H200). There workgroup z of SPLITS
// (the grid's z) takes the z-th share of the steps and stores its BM x BN sums to slot z of its
// tile in binding 2 (y's in the unsplit kernel); matmul_split_reduce.comp, the next dispatch,
// adds the slots in split order and writes y. (Adding them in this dispatch, by the tile's last
// workgroup to arrive as dmmv_int8mat_body.glsl does, gave wrong sums on NVIDIA's driver 580:
// docs/GPU_FIGURES.md.)
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint BM = 128;     // weight rows per workgroup, a multiple of WM
layout(constant_id = 1) const uint BN = 128;     // tokens per workgroup, a multiple of WN
layout(constant_id = 2) const uint BK = 32;      // K step, a multiple of 16
layout(constant_id = 3) const uint WM = 64;      // rows per subgroup block: 32 or 64
layout(constant_id = 4) const uint WN = 32;      // tokens per subgroup block: 32 or 64
layout(local_size_x_id = 5) in;                  // BLOCKS * subgroup size threads (spec id 5)
layout(constant_id = 6) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)
layout(constant_id = 7) const uint STAGES = 2;   // shared tiles per operand: 1 or 2
#ifdef MATMUL_SPLIT_K
layout(constant_id = 9) const uint SPLITS = 2;  // = gl_NumWorkGroups.z: workgroups splitting K
// Per tile (tile_index()) and split, one slot of BM x BN sums, [token][row], bound where the
// unsplit kernel binds y (which the split kernel does not write).
layout(binding = 2) buffer SplitSums { float split_sums[]; };
#endif

#include "matmul_tile_io.glsl"

#ifndef MATMUL_DECODE_F16
// Group g's weights in k_order: row[k, k+2, k+1, k+3] in v[0], row[k+4, k+6, k+5, k+7] in v[1].
void matmul_decode_f16(WeightGroup g, uint k, out f16vec4 v[MATMUL_GROUP / 4]) {
  vec4 lo, hi;
  matmul_decode8(g, k, lo, hi);
  v[0] = f16vec4(lo.xzyw);
  v[1] = f16vec4(hi.xzyw);
}
#endif

const uint BLOCKS_M = BM / WM;
const uint BLOCKS = BLOCKS_M * (BN / WN);
// Tile rows are BK + 8 halves: 16-byte aligned for the matrix loads, and consecutive rows
// start 16 bytes apart in the banks, so the 8 rows of one 16-byte-per-row load do not
// collide. The tiles are f16vec4 arrays so that a thread stores 8 bytes at a time; offsets
// and strides of the matrix loads are then in f16vec4 units.
const uint STRIDE4 = (BK + 8) / 4;
const uint W_TILE4 = BM * STRIDE4;  // f16vec4 per weight tile
const uint X_TILE4 = BN * STRIDE4;

shared f16vec4 w_tile[STAGES * W_TILE4];  // row-major: weight row r at r * STRIDE4
shared f16vec4 x_tile[STAGES * X_TILE4];  // token-major: token c at c * STRIDE4 (B column-major)
shared float stage[BLOCKS * 256];         // one 16 x 16 result per subgroup block, for edges

// Decodes this invocation's fetched registers of step k0 into tile buffer `buf` as f16, in
// k_order.
void store_tiles(uint buf, uint k0) {
  [[unroll]] for (uint i = 0; i < W_PER_THREAD; ++i) {
    const uint g = w_group_of(i);
    if (g >= W_GROUPS) break;
    const uint at = buf * W_TILE4 + w_group_row(g) * STRIDE4 + w_group_k(g) / 4;
    f16vec4 v[MATMUL_GROUP / 4];
    matmul_decode_f16(w_reg[i], k0 + w_group_k(g), v);
    [[unroll]] for (uint j = 0; j < MATMUL_GROUP / 4; ++j) w_tile[at + j] = v[j];
  }
  [[unroll]] for (uint i = 0; i < X_PER_THREAD; ++i) {
    const uint v = x_vec_of(i);
    if (v >= X_VECS) break;
    x_tile[buf * X_TILE4 + x_vec_token(v) * STRIDE4 + x_vec_k(v) / 4] = f16vec4(x_reg[i].xzyw);  // k_order
  }
}

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

// Writes (or adds) one 16 x 16 result at (row, token). A tile wholly inside the problem goes
// straight to y (column-major: token c's rows start at c * y_stride); an edge tile goes
// through the block's staging tile, stage[block * 256 + c * 16 + r] holding row r, token c,
// so that each element is guarded. The branch is uniform in the subgroup.
void store_result(ACC result, uint block, uint row, uint token) {
#ifndef MOE_MATMUL  // the experts' tokens are scattered columns: element by element below
  if (row + 16 <= pc.rows && token + 16 <= pc.ncols) {
    const uint at = pc.y_offset + token * pc.y_stride + pc.row_base + row;
    if (ACCUMULATE != 0) {
      ACC before;
      coopMatLoad(before, y, at, pc.y_stride, gl_CooperativeMatrixLayoutColumnMajor);
      result = result + before;
    }
    coopMatStore(result, y, at, pc.y_stride, gl_CooperativeMatrixLayoutColumnMajor);
    return;
  }
#endif
  coopMatStore(result, stage, block * 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  for (uint e = gl_SubgroupInvocationID; e < 256; e += gl_SubgroupSize) {
    matmul_store(row + e % 16, token + e / 16, stage[block * 256 + e], ACCUMULATE != 0);
  }
  subgroupMemoryBarrierShared();
  subgroupBarrier();
}

#ifdef MATMUL_SPLIT_K
uint tile_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Stores one 16 x 16 result at (row, token) within the tile into this workgroup's slot (whole
// matrices: the slot holds all BM x BN, the edges included, and the reduction reads what it needs).
void store_partial(ACC result, uint row, uint token) {
  const uint slot = (tile_index() * SPLITS + gl_WorkGroupID.z) * BM * BN;
  coopMatStore(result, split_sums, slot + token * BM + row, BM, gl_CooperativeMatrixLayoutColumnMajor);
}
#define STORE_PARTIAL(i, j) store_partial(c##i##j, bm + 16 * i, bn + 16 * j)
#define K_AT(s) ((step0 + (s)) * BK)
#else
#define K_AT(s) ((s) * BK)
#endif

// Matrix i of the block's rows (a) and j of its tokens (b) at depth kk of tile buffer `buf`.
#define LOAD_A(i) coopMatLoad(a##i, w_tile, buf * W_TILE4 + (bm + 16 * i) * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutRowMajor)
#define LOAD_B(j) coopMatLoad(b##j, x_tile, buf * X_TILE4 + (bn + 16 * j) * STRIDE4 + kk / 4, STRIDE4, gl_CooperativeMatrixLayoutColumnMajor)
#define MMA(i, j) c##i##j = coopMatMulAdd(a##i, b##j, c##i##j)
#define STORE(i, j) store_result(c##i##j, block, row0 + bm + 16 * i, col0 + bn + 16 * j)
// OP(i, j) for each 16 x 16 tile of the block; those of the 64-wide halves behind WM > 32 and
// WN > 32, constant after specialization.
#define FOR_BLOCK_TILES(OP)                          \
  OP(0, 0); OP(0, 1); OP(1, 0); OP(1, 1);            \
  if (WN > 32) {                                     \
    OP(0, 2); OP(0, 3); OP(1, 2); OP(1, 3);          \
  }                                                  \
  if (WM > 32) {                                     \
    OP(2, 0); OP(2, 1); OP(3, 0); OP(3, 1);          \
    if (WN > 32) {                                   \
      OP(2, 2); OP(2, 3); OP(3, 2); OP(3, 3);        \
    }                                                \
  }

void main() {
  const uint row0 = gl_WorkGroupID.y * BM;
  const uint col0 = gl_WorkGroupID.x * BN;
#ifdef MOE_MATMUL
  if (!moe_item_begin(col0)) return;  // uniform: the whole workgroup leaves before any barrier
#endif
#ifdef MATMUL_SPLIT_K
  // Split z's steps; the op builder takes SPLITS so that none is empty.
  const uint all_steps = (pc.cols + BK - 1) / BK, share = (all_steps + SPLITS - 1) / SPLITS;
  const uint step0 = gl_WorkGroupID.z * share;
  const uint steps = min(share, all_steps - step0);
#else
  const uint steps = (pc.cols + BK - 1) / BK;
#endif
  // One pass when the workgroup has BLOCKS subgroups (see above); gl_NumSubgroups is uniform,
  // so every invocation takes the barriers below equally often.
  for (uint first = 0; first < BLOCKS; first += gl_NumSubgroups) {
    const uint block = first + gl_SubgroupID;
    const bool owns_block = block < BLOCKS;       // uniform within the subgroup
    const uint bm = (block % BLOCKS_M) * WM;      // the block's first row within the tile
    const uint bn = (block / BLOCKS_M) * WN;      // its first token within the tile
    // c<row sixteenth><token sixteenth>; those beyond WM or WN are never touched.
    ACC c00 = ACC(0.0), c01 = ACC(0.0), c02 = ACC(0.0), c03 = ACC(0.0);
    ACC c10 = ACC(0.0), c11 = ACC(0.0), c12 = ACC(0.0), c13 = ACC(0.0);
    ACC c20 = ACC(0.0), c21 = ACC(0.0), c22 = ACC(0.0), c23 = ACC(0.0);
    ACC c30 = ACC(0.0), c31 = ACC(0.0), c32 = ACC(0.0), c33 = ACC(0.0);
    // Step s + 1's loads are issued before step s's products and stored after them. One
    // stage: a barrier before the store, as the products read the only tile. Two: step s + 1
    // goes into the other tile, so one barrier per step.
    fetch_tiles(row0, col0, K_AT(0));
    if (STAGES == 2) {
      store_tiles(0, K_AT(0));
      barrier();
    }
    for (uint s = 0; s < steps; ++s) {
      const bool more = s + 1 < steps;  // uniform: the barriers below are taken by all
      if (STAGES == 1) {
        store_tiles(0, K_AT(s));
        barrier();
      }
      if (more) fetch_tiles(row0, col0, K_AT(s + 1));  // issued before the products
      const uint buf = s % STAGES;
      if (owns_block) {
        [[unroll]] for (uint kk = 0; kk < BK; kk += 16) {
          MAT_A a0, a1, a2, a3;
          MAT_B b0, b1, b2, b3;
          LOAD_A(0);
          LOAD_A(1);
          if (WM > 32) {
            LOAD_A(2);
            LOAD_A(3);
          }
          LOAD_B(0);
          LOAD_B(1);
          if (WN > 32) {
            LOAD_B(2);
            LOAD_B(3);
          }
          FOR_BLOCK_TILES(MMA)
        }
      }
      if (STAGES == 2 && more) store_tiles((s + 1) % 2, K_AT(s + 1));
      barrier();
    }
    if (!owns_block) continue;
#ifdef MATMUL_SPLIT_K
    FOR_BLOCK_TILES(STORE_PARTIAL)
#else
    FOR_BLOCK_TILES(STORE)
#endif
  }
}
