// The integer-dot DMMV's product for 8 or 16 columns on the matrix units' int8 products
// (GL_KHR_cooperative_matrix, 16 x 8 x 32 int8 -> int32): y[c][row] (+)= sum_k W[row][k] xhat[c][k],
// from the same quantized activations (dmmv_intdot_quantized_x.glsl) and push constants as
// dmmv_intdot_body.glsl, with the same result up to float32 rounding: the products of the
// weights' and the activations' integer quants are exact in int32, and each 32-weight block's
// sum is then scaled by its row's and its column's scales in float, as the integer dot does.
//
// Why: at 8 columns the integer dot spends 64 dependent packed dot products per 32 weights per
// row, and measured bound by that chain, not by any one resource (docs/GPU_FIGURES.md); the f16
// matrix kernel (dmmv_coopmat_body.glsl) first converts every weight and activation to f16. Here
// one int8 matrix product takes a block of 32 weights of 16 rows against 8 columns, on the
// integer quants as they are (16 columns: two products on the same weight tile).
//
// Scales: the matrix product leaves one int32 tile per block whose rows and columns carry
// scales of their own (d sc of the row's block, d of the column's block). KHR cooperative
// matrices do not say which element an invocation holds, so the kernel asks: it loads a tile
// whose every element is its own position (8 r + c) into a matrix of the accumulator type and
// reads back, per invocation, which (r, c) each of its elements is. Matrices of one type share
// that layout, so element i of every block's tile is the same (r, c), and each invocation
// scales and sums its own elements in float. The float sums are kept, as bits, in a matrix of
// that same type. The scales come from two small tables the subgroup fills per step in shared
// memory, (mul, min) per row and block and (d, d sum q) per column and block (Q8_0, without
// mins: mul and d alone), so that each element reads two of them rather than decoding its
// row's scales itself.
//
// Integer sums as floats: each product accumulates onto DOT_BIAS (dmmv_intdot_common.glsl), so
// that an element's bits less 1.5 * 2^23 are its exact sum without an int -> float conversion.
//
// Staging: every operand goes through shared memory. The first version, with matrix loads
// straight from the storage buffers and each element decoding its own row's scales, measured
// 3-4x slower than the integer dot on an H200; here the
// subgroup reads its step's weights, activations and scales as whole uvec4s, coalesced, into
// registers one step ahead (while the current step's products run), then writes them as tiles.
//
// Work split: a workgroup owns ROWS rows (16, 32 or 64: 1, 2 or 4 tiles), and its subgroups split
// K in steps of STEP_BLOCKS blocks: subgroup s takes steps s, s + S, s + 2S, ... At the end the
// subgroups' sums meet in shared memory. The last workgroup's tiles end at the slice's last row
// (rows >= ROWS, which the op requires) and it writes only the rows past the previous ones.
// Subgroups are 32 wide (the op requires it).
//
// K split (INT8MAT_SPLIT_K, the _split kernels): wide rows (ffn_down: 14336 inputs for 4096
// rows) leave too few workgroups of whole rows to keep every SM reading. There workgroup z of
// SPLITS (the grid's z) takes the z-th equal share of each row's steps and writes its sums to a
// slot of binding 4; the row group's last workgroup to arrive, told by a counter, adds the
// slots in split order (the same sum whichever arrives last) and writes y, and sets the counter
// back to zero for the next dispatch (the binding starts zeroed). No workgroup waits for
// another, so nothing depends on workgroups running concurrently (argmax_slices.comp does the
// same).
//
// Included after dmmv_intdot_common.glsl and a format file that binds the weights at binding 0
// and defines A_WORDS_PER_ROW_BLOCK (the uvec4s a row's block of 32 weights is read as) and
// WEIGHT_MINS (1 where w = mul q - min, 0 where w = mul q); the kernel defines, after this
// body, the four functions it declares below.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint NUM_COLS = 8;     // columns of this dispatch: 8 or 16
layout(constant_id = 1) const uint SUBGROUPS = 4;    // subgroups per workgroup, splitting K
layout(constant_id = 3) const uint ROWS = 16;        // rows per workgroup: 16, 32 or 64
layout(constant_id = 4) const int ACCUMULATE = 0;    // 1: y += W x (fused residual add)
layout(constant_id = 5) const uint STEP_BLOCKS = 2;  // 32-weight blocks per K step: 2, 4 or 8
layout(local_size_x_id = 2) in;                      // SUBGROUPS * 32 (spec id 2)

layout(binding = 3) buffer Y { float y[]; };  // column c at c * y_stride floats
#ifdef INT8MAT_SPLIT_K
layout(constant_id = 6) const uint SPLITS = 4;  // = gl_NumWorkGroups.z: workgroups splitting K
// One arrival counter per row group from word 0, then from split_sums_base() one slot of
// ROWS x NUM_COLS sums ([c][row]) per row group and split. Coherent: a group's last workgroup
// reads what the others wrote in this dispatch.
layout(binding = 4) coherent buffer SplitSums { float split_sums[]; };
layout(binding = 4) coherent buffer SplitArrivals { uint split_arrivals[]; };
#endif

#define IACC coopmat<int, gl_ScopeSubgroup, 16, 8, gl_MatrixUseAccumulator>
#define MAT_A coopmat<int8_t, gl_ScopeSubgroup, 16, 32, gl_MatrixUseA>
#define MAT_B coopmat<int8_t, gl_ScopeSubgroup, 32, 8, gl_MatrixUseB>

const uint ROW_TILES = ROWS / 16;
const uint COL_TILES = NUM_COLS / 8;
const uint STEP_WEIGHTS = STEP_BLOCKS * 32;
const uint A_WORDS = ROWS * STEP_BLOCKS * A_WORDS_PER_ROW_BLOCK / 32;  // weight uvec4s a lane loads per step

// A staged tile's rows (weights) or columns (activations), in uvec4s: 32 bytes and 16 of
// padding, so that the matrix loads of neighbouring rows start in different banks.
const uint TILE_LINE4 = 3;
const uint A_TILE4 = 16 * TILE_LINE4;                    // one weight tile: 16 rows
const uint B_TILE4 = 8 * TILE_LINE4;                     // one activation tile: 8 columns
const uint A_STAGE4 = ROW_TILES * STEP_BLOCKS * A_TILE4;  // a subgroup's weight tiles, [t][b]
const uint B_STAGE4 = STEP_BLOCKS * COL_TILES * B_TILE4;  // its activation tiles, [b][column tile]
shared uvec4 a_stage[SUBGROUPS * A_STAGE4];
shared uvec4 b_stage[SUBGROUPS * B_STAGE4];
// The scale tables' entries: (mul, min) per row and block and (d, d sum q) per column and block
// where the weights have mins (WEIGHT_MINS 1); mul and d alone where they have none, so that no
// element reads or multiplies a zero min. A row's or column's entries of two consecutive blocks
// are one vector (STEP_BLOCKS is even), so that at 8 columns an element reads both blocks' scales
// in one shared load per table: measured 2-3% faster there on an H200 (docs/GPU_FIGURES.md).
#if WEIGHT_MINS
#define SCALE_PAIR vec4  // (entry of block 2j, entry of block 2j + 1)
// Block h's entry of a table's pair, loaded alone (not the pair, which would stay in registers).
#define TABLE_ENTRY(table, pair, h) vec2(table[pair][2 * (h)], table[pair][2 * (h) + 1])
// Column entry (d, d sum q) of block h into col_table's pair, component by component, so that no
// lane's store covers its neighbour's half.
#define STORE_COLUMN_ENTRY(pair, h, xs) { col_table[pair][2 * (h)] = (xs).x; col_table[pair][2 * (h) + 1] = (xs).y; }
vec2 pair_entry(vec4 pair, uint h) { return h == 0u ? pair.xy : pair.zw; }
float scaled_block_sum(float sum, vec2 w, vec2 xd) { return xd.x * (w.x * sum) - w.y * xd.y; }
#else
#define SCALE_PAIR vec2
#define TABLE_ENTRY(table, pair, h) table[pair][h]
#define STORE_COLUMN_ENTRY(pair, h, xs) { col_table[pair][h] = (xs).x; }
float pair_entry(vec2 pair, uint h) { return h == 0u ? pair.x : pair.y; }
float scaled_block_sum(float sum, float w, float xd) { return xd * (w * sum); }
#endif
// The two blocks' integer sums, scaled.
vec2 scaled_pair_sums(vec2 sums, SCALE_PAIR w, SCALE_PAIR xd) {
  return vec2(scaled_block_sum(sums.x, pair_entry(w, 0u), pair_entry(xd, 0u)),
              scaled_block_sum(sums.y, pair_entry(w, 1u), pair_entry(xd, 1u)));
}
const uint STEP_PAIRS = STEP_BLOCKS / 2;
shared SCALE_PAIR row_table[SUBGROUPS * ROWS * STEP_PAIRS];     // of [row][block pair]
shared SCALE_PAIR col_table[SUBGROUPS * NUM_COLS * STEP_PAIRS];  // of [column][block pair]
shared int tile_positions[128];                         // 8 r + c at (r, c), row-major
shared float partial[SUBGROUPS * ROWS * NUM_COLS];      // each subgroup's sums, [s][c][row]

// The format's part. fetch_weights loads this lane's A_WORDS uvec4s of the step's weights of
// the ROWS rows from row0 and store_weights writes them into the subgroup's tiles at `base`
// (tile t, b at base + (t * STEP_BLOCKS + b) * A_TILE4, row r of it TILE_LINE4 * r further, as
// int8). fetch_scales loads what a row's scales for the step need (lane l reads rows l, l + 32)
// and store_scales writes the row's STEP_PAIRS SCALE_PAIRs from row_table[at]: per block (mul,
// min), for weights w = mul q - min, or mul alone where WEIGHT_MINS is 0.
void fetch_weights(uint row0, uint step, out uvec4 raw[A_WORDS]);
void store_weights(const uvec4 raw[A_WORDS], uint base);
uvec4 fetch_scales(uint row, uint step);
void store_scales(uvec4 raw, uint step, uint at);

// What a lane holds of a step before it is staged.
const uint X_WORDS = (NUM_COLS * STEP_BLOCKS * 2 + 31) / 32;  // activation uvec4s: 2 per column and block
const uint XS_WORDS = (NUM_COLS * STEP_BLOCKS + 31) / 32;     // column scales
uvec4 a_raw[A_WORDS];
uvec4 x_raw[X_WORDS];
vec2 xs_raw[XS_WORDS];
const uint S_WORDS = (ROWS + 31) / 32;  // rows whose scales a lane reads: lane, lane + 32
uvec4 s_raw[S_WORDS];

void fetch_step(uint step, uint first_row) {
  const uint lane = gl_SubgroupInvocationID;
  fetch_weights(first_row, step, a_raw);
  [[unroll]] for (uint n = 0; n < X_WORDS; ++n) {
    const uint p = min(lane + 32 * n, NUM_COLS * STEP_BLOCKS * 2 - 1);  // column p / (2 STEP_BLOCKS)
    x_raw[n] = x_quants(p / (2 * STEP_BLOCKS), step * STEP_BLOCKS * 2 + p % (2 * STEP_BLOCKS));
  }
  [[unroll]] for (uint n = 0; n < XS_WORDS; ++n) {
    const uint p = min(lane + 32 * n, NUM_COLS * STEP_BLOCKS - 1);
    xs_raw[n] = x_scales(p / STEP_BLOCKS, step * STEP_BLOCKS + p % STEP_BLOCKS);
  }
  [[unroll]] for (uint n = 0; n < S_WORDS; ++n) {
    s_raw[n] = fetch_scales(first_row + min(lane + 32 * n, ROWS - 1), step);
  }
}

void store_step(uint step) {
  const uint lane = gl_SubgroupInvocationID, s = gl_SubgroupID;
  store_weights(a_raw, s * A_STAGE4);
  [[unroll]] for (uint n = 0; n < X_WORDS; ++n) {
    const uint p = lane + 32 * n;
    if (p >= NUM_COLS * STEP_BLOCKS * 2) break;
    const uint c = p / (2 * STEP_BLOCKS), h = p % (2 * STEP_BLOCKS);  // h: 16-byte half h % 2 of block h / 2
    b_stage[s * B_STAGE4 + ((h / 2) * COL_TILES + c / 8) * B_TILE4 + (c % 8) * TILE_LINE4 + h % 2] = x_raw[n];
  }
  [[unroll]] for (uint n = 0; n < XS_WORDS; ++n) {
    const uint p = lane + 32 * n;
    if (p >= NUM_COLS * STEP_BLOCKS) break;
    // Column p / STEP_BLOCKS, block p % STEP_BLOCKS: its half of a pair. (Lanes loading whole
    // pairs instead, two loads each on half the lanes, measured 3% slower at 16 columns.)
    const uint pair = s * NUM_COLS * STEP_PAIRS + p / 2, h = p % 2;
    STORE_COLUMN_ENTRY(pair, h, xs_raw[n]);
  }
  [[unroll]] for (uint n = 0; n < S_WORDS; ++n) {
    const uint row = lane + 32 * n;
    if (row < ROWS) store_scales(s_raw[n], step, (s * ROWS + row) * STEP_PAIRS);
  }
}

#ifdef INT8MAT_SPLIT_K
// The word of the first slot: past the counters, on 16 bytes.
uint split_sums_base() { return (((pc.rows + ROWS - 1) / ROWS) + 3u) & ~3u; }
shared bool arrived_last;
#endif

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint own_first = group * ROWS;                    // the first row this workgroup writes
  if (own_first >= pc.rows) return;                       // past the end of a folded grid
  const uint first_row = min(own_first, pc.rows - ROWS);  // the first row of its tiles
  const uint s = gl_SubgroupID;
  for (uint e = gl_LocalInvocationID.x; e < 128; e += gl_WorkGroupSize.x) tile_positions[e] = int(e);
  barrier();
  IACC positions;
  coopMatLoad(positions, tile_positions, 0, 8, gl_CooperativeMatrixLayoutRowMajor);

  IACC sums[ROW_TILES * COL_TILES];  // [t][column tile]
  [[unroll]] for (uint t = 0; t < ROW_TILES * COL_TILES; ++t) sums[t] = IACC(0);  // the bits of 0.0
#ifdef INT8MAT_SPLIT_K
  const uint steps = pc.cols / STEP_WEIGHTS / SPLITS, first_step = gl_WorkGroupID.z * steps;
#else
  const uint steps = pc.cols / STEP_WEIGHTS, first_step = 0;
#endif
  if (s < steps) fetch_step(first_step + s, first_row);
  for (uint nth = s; nth < steps; nth += SUBGROUPS) {  // this workgroup's nth step
    const uint step = first_step + nth;
    store_step(step);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (nth + SUBGROUPS < steps) fetch_step(step + SUBGROUPS, first_row);  // in flight during the products
    // At 8 columns two blocks at a time, so that an element's scales for both come in one load
    // per table. At 16, with two column tiles per weight tile, block by block as before: there
    // the pairs' registers cost more than the loads they save (3% slower on an H200).
    [[unroll]] for (uint j = 0; j < STEP_PAIRS; ++j) {
      if (COL_TILES == 1) {
        // The pair's two blocks. (One array of them sized 2 * COL_TILES crashed NVIDIA's compiler.)
        MAT_B x0, x1;
        coopMatLoad(x0, b_stage, s * B_STAGE4 + 2 * j * B_TILE4, TILE_LINE4,
                    gl_CooperativeMatrixLayoutColumnMajor);
        coopMatLoad(x1, b_stage, s * B_STAGE4 + (2 * j + 1) * B_TILE4, TILE_LINE4,
                    gl_CooperativeMatrixLayoutColumnMajor);
        [[unroll]] for (uint t = 0; t < ROW_TILES; ++t) {
          MAT_A a0, a1;
          coopMatLoad(a0, a_stage, s * A_STAGE4 + (t * STEP_BLOCKS + 2 * j) * A_TILE4, TILE_LINE4,
                      gl_CooperativeMatrixLayoutRowMajor);
          coopMatLoad(a1, a_stage, s * A_STAGE4 + (t * STEP_BLOCKS + 2 * j + 1) * A_TILE4, TILE_LINE4,
                      gl_CooperativeMatrixLayoutRowMajor);
          const IACC tile0 = coopMatMulAdd(a0, x0, IACC(DOT_BIAS));
          const IACC tile1 = coopMatMulAdd(a1, x1, IACC(DOT_BIAS));
          [[unroll]] for (int i = 0; i < positions.length(); ++i) {
            const uint r = 16 * t + uint(positions[i]) / 8u, c = uint(positions[i]) % 8u;
            const SCALE_PAIR w = row_table[(s * ROWS + r) * STEP_PAIRS + j];
            const SCALE_PAIR xd = col_table[(s * NUM_COLS + c) * STEP_PAIRS + j];
            const vec2 scaled = scaled_pair_sums(  // exact integer sums: see DOT_BIAS
                vec2(biased_dot_float(tile0[i]), biased_dot_float(tile1[i])), w, xd);
            // Block 2j, then 2j + 1: the order of the adds is the one-block-at-a-time order.
            sums[t][i] = floatBitsToInt((intBitsToFloat(sums[t][i]) + scaled.x) + scaled.y);
          }
        }
      } else {
        [[unroll]] for (uint h = 0; h < 2; ++h) {
          const uint b = 2 * j + h;
          MAT_B x[COL_TILES];
          [[unroll]] for (uint u = 0; u < COL_TILES; ++u) {
            coopMatLoad(x[u], b_stage, s * B_STAGE4 + (b * COL_TILES + u) * B_TILE4, TILE_LINE4,
                        gl_CooperativeMatrixLayoutColumnMajor);
          }
          [[unroll]] for (uint t = 0; t < ROW_TILES; ++t) {
            MAT_A a;
            coopMatLoad(a, a_stage, s * A_STAGE4 + (t * STEP_BLOCKS + b) * A_TILE4, TILE_LINE4,
                        gl_CooperativeMatrixLayoutRowMajor);
            [[unroll]] for (uint u = 0; u < COL_TILES; ++u) {
              const IACC tile = coopMatMulAdd(a, x[u], IACC(DOT_BIAS));
              [[unroll]] for (int i = 0; i < positions.length(); ++i) {
                const uint r = 16 * t + uint(positions[i]) / 8u, c = 8 * u + uint(positions[i]) % 8u;
                const float scaled = scaled_block_sum(biased_dot_float(tile[i]),  // exact: see DOT_BIAS
                                                      TABLE_ENTRY(row_table, (s * ROWS + r) * STEP_PAIRS + j, h),
                                                      TABLE_ENTRY(col_table, (s * NUM_COLS + c) * STEP_PAIRS + j, h));
                const uint k = t * COL_TILES + u;
                sums[k][i] = floatBitsToInt(intBitsToFloat(sums[k][i]) + scaled);
              }
            }
          }
        }
      }
    }
    subgroupBarrier();  // the tiles are refilled next step
  }

  [[unroll]] for (uint t = 0; t < ROW_TILES; ++t) {
    [[unroll]] for (uint u = 0; u < COL_TILES; ++u) {
      [[unroll]] for (int i = 0; i < positions.length(); ++i) {
        const uint r = 16 * t + uint(positions[i]) / 8u, c = 8 * u + uint(positions[i]) % 8u;
        partial[(s * NUM_COLS + c) * ROWS + r] = intBitsToFloat(sums[t * COL_TILES + u][i]);
      }
    }
  }
  barrier();
#ifdef INT8MAT_SPLIT_K
  const uint slots = split_sums_base() + group * SPLITS * ROWS * NUM_COLS;
  for (uint e = gl_LocalInvocationID.x; e < ROWS * NUM_COLS; e += gl_WorkGroupSize.x) {
    const uint r = e % ROWS, c = e / ROWS;
    float sum = 0.0;
    for (uint t = 0; t < SUBGROUPS; ++t) sum += partial[(t * NUM_COLS + c) * ROWS + r];
    split_sums[slots + gl_WorkGroupID.z * ROWS * NUM_COLS + e] = sum;
  }
  memoryBarrierBuffer();  // every invocation's sums are visible before the count says they are there
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    arrived_last = atomicAdd(split_arrivals[group], 1u) == SPLITS - 1u;
    memoryBarrierBuffer();  // and the reads below come after the count
  }
  barrier();
  if (!arrived_last) return;  // the whole workgroup: arrived_last is shared
#endif
  for (uint e = gl_LocalInvocationID.x; e < ROWS * NUM_COLS; e += gl_WorkGroupSize.x) {
    const uint r = e % ROWS, c = e / ROWS;
    const uint row = first_row + r;
    if (row < own_first) continue;  // the previous workgroup's
    float sum = 0.0;
#ifdef INT8MAT_SPLIT_K
    float parts[SPLITS];  // all loads in flight before the first add
    [[unroll]] for (uint z = 0; z < SPLITS; ++z) parts[z] = split_sums[slots + z * ROWS * NUM_COLS + e];
    [[unroll]] for (uint z = 0; z < SPLITS; ++z) sum += parts[z];
#else
    for (uint t = 0; t < SUBGROUPS; ++t) sum += partial[(t * NUM_COLS + c) * ROWS + r];
#endif
    const uint at = pc.y_offset + c * pc.y_stride + pc.row_base + row;
    y[at] = ACCUMULATE != 0 ? y[at] + sum : sum;
  }
#ifdef INT8MAT_SPLIT_K
  if (gl_LocalInvocationIndex == 0) split_arrivals[group] = 0u;  // for the next dispatch, ordered by its barrier
#endif
}
