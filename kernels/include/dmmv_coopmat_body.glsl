// The integer-dot DMMV's product for several columns on the matrix units (GL_KHR_cooperative_matrix):
// y[c][row] (+)= sum_k W[row][k] * xhat[c][k], from the same quantized activations
// (dmmv_intdot_quantized_x.glsl) and push constants as dmmv_intdot_body.glsl.
//
// Why: the integer-dot kernel spends two packed dot products per 4 weights per column, and
// every one of its workgroups re-reads all the activations; at 8 and 16 columns that work, not
// the weight bytes, bounds it (3x the one-column time on an H200). Here a subgroup dequantizes
// a ROWS x STEP weight tile once into shared memory as f16 and multiplies it with a STEP x 16
// activation tile in 16 x 16 x 16 matrix products, whatever NUM_COLS (1..16; the columns past
// NUM_COLS are zero). Per weight that is one dequantization and a 4-byte round trip through
// shared memory. On an H200 that ties the integer dot at 8 columns and beats it at 16 (Q4_K
// ffn_down 4096x14336: 43.6 against 61.6 us), so the engine gives it pieces of 16
// (engine/ops/dmmv_intdot_op.cpp).
//
// Work split: a workgroup owns ROWS rows (16 or 32, one or two accumulators per subgroup), and
// its subgroups split K: subgroup s takes the STEP-weight steps s, s + S, s + 2S, ... (S the
// subgroup count) with tiles of its own, so the loop needs no workgroup barrier. At the end the
// subgroups' accumulators meet in shared memory and are summed. Workgroups of few rows keep
// enough of them in flight on 4096-row matrices; splitting K keeps each one's activations
// read once.
//
// Precision: weights and activations are rounded to f16 (2^-11 relative) before the products,
// accumulation is f32, as in the cooperative-matrix matmul (matmul_coopmat_body.glsl).
//
// Latency: a step's loads are issued into registers before the previous step's products
// (fetch_step), so that they are in flight while the matrix units work, and only then turned
// into tiles (store_step). Loading and converting in one pass took twice as long.
//
// Conversions: with an int -> float and a float -> f16 conversion per weight the kernel took
// 20% longer (Q4_K at 8 columns on ffn_down 4096x14336, H200: 43.8 against 36.2 us). Bytes
// become f16 through f16_bytes.glsl instead, so the tiles hold every four consecutive k in
// its "k_order" (0, 2, 1, 3); weights and activations alike, which leaves the products' sums
// unchanged.
//
// Included after dmmv_intdot_common.glsl and an integer-dot format file of 16-weight chunks
// (dmmv_intdot_q8_0.glsl, dmmv_intdot_q4_k16.glsl), which binds the weights at binding 0 and
// defines
//   struct WeightRaw                                       the loaded words of a chunk
//   WeightRaw fetch_chunk(uint row, uint chunk)            loads only, for weights 16 chunk ..
// and a declaration, before this body, of
//   void dequantize_chunk(WeightRaw raw, uint chunk, out f16vec4 v[4])   their values in k_order
// which the kernel defines after it, with its helpers. Needs cols a multiple of STEP.
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require

#include "f16_bytes.glsl"

layout(constant_id = 0) const uint NUM_COLS = 8;   // activation columns of this dispatch, 1..16
layout(constant_id = 1) const uint SUBGROUPS = 4;  // subgroups the shared tiles are sized for
layout(constant_id = 3) const uint ROWS = 32;      // rows per workgroup: 16 or 32
layout(constant_id = 4) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)
layout(constant_id = 5) const uint STEP = 64;      // weights of a row per K step: 64, 128 or 256
layout(local_size_x_id = 2) in;                    // SUBGROUPS * 32 threads (spec id 2)

layout(binding = 3) buffer Y { float y[]; };  // column c at c * y_stride floats

const uint STEP_CHUNKS = STEP / 16;
// Tile rows of STEP + 8 halves: 16-byte aligned for the matrix loads, and consecutive rows
// 16 bytes apart in the banks. Offsets are in f16vec4 units.
const uint STRIDE4 = (STEP + 8) / 4;
const uint TILE_A4 = ROWS * STRIDE4;  // one subgroup's weight tile, row-major
const uint TILE_B4 = 16 * STRIDE4;    // one subgroup's activation tile, column-major

shared f16vec4 a_tiles[SUBGROUPS * TILE_A4];
shared f16vec4 b_tiles[SUBGROUPS * TILE_B4];
shared float partial[SUBGROUPS * ROWS * 16];  // each subgroup's ROWS x 16 result, column-major per 16 rows

#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>

// Activation quants times their block's scale d, in k_order. quantize_x gives d at most 11
// significant bits, so where d is a normal f16 it is exact and each value is the float product
// rounded once; activations beyond f16's range are the limit of every f16 product here, as in
// matmul_coopmat_body.glsl.
f16vec4 activations_f16(uint word, float d) { return signed_bytes_f16(word, float16_t(d)); }

// What one lane loads per step: A_PER_LANE weight chunks and X_PER_LANE activation chunks
// (for subgroups of 32; wider ones leave the later slots empty).
const uint A_PER_LANE = ROWS * STEP_CHUNKS / 32;
const uint X_PER_LANE = (NUM_COLS * STEP_CHUNKS + 31) / 32;
WeightRaw a_raw[A_PER_LANE];
uvec4 x_raw[X_PER_LANE];
float x_scale[X_PER_LANE];

// Issues the loads of step `step` of the workgroup's rows and activations. Lanes take
// consecutive 16-weight chunks of a row, so a subgroup reads few cache lines. Rows past the
// slice read its last row (their results are never written).
void fetch_step(uint step, uint first_row) {
  [[unroll]] for (uint n = 0; n < A_PER_LANE; ++n) {
    const uint p = gl_SubgroupInvocationID + n * gl_SubgroupSize;
    const uint r = min(p / STEP_CHUNKS, ROWS - 1);
    a_raw[n] = fetch_chunk(min(first_row + r, pc.rows - 1), step * STEP_CHUNKS + p % STEP_CHUNKS);
  }
  [[unroll]] for (uint n = 0; n < X_PER_LANE; ++n) {
    const uint p = gl_SubgroupInvocationID + n * gl_SubgroupSize;
    const uint c = min(p / STEP_CHUNKS, NUM_COLS - 1), chunk = step * STEP_CHUNKS + p % STEP_CHUNKS;
    x_raw[n] = x_quants(c, chunk);
    x_scale[n] = x_scales(c, chunk >> 1).x;
  }
}

// Turns the fetched registers into this subgroup's tiles, in f16 and k_order.
void store_step(uint step, uint a0, uint b0) {
  [[unroll]] for (uint n = 0; n < A_PER_LANE; ++n) {
    const uint p = gl_SubgroupInvocationID + n * gl_SubgroupSize;
    if (p >= ROWS * STEP_CHUNKS) break;
    f16vec4 v[4];
    dequantize_chunk(a_raw[n], step * STEP_CHUNKS + p % STEP_CHUNKS, v);
    const uint at = a0 + (p / STEP_CHUNKS) * STRIDE4 + (p % STEP_CHUNKS) * 4;
    [[unroll]] for (uint j = 0; j < 4; ++j) a_tiles[at + j] = v[j];
  }
  [[unroll]] for (uint n = 0; n < X_PER_LANE; ++n) {
    const uint p = gl_SubgroupInvocationID + n * gl_SubgroupSize;
    if (p >= NUM_COLS * STEP_CHUNKS) break;
    const uint at = b0 + (p / STEP_CHUNKS) * STRIDE4 + (p % STEP_CHUNKS) * 4;
    [[unroll]] for (uint j = 0; j < 4; ++j) b_tiles[at + j] = activations_f16(x_raw[n][j], x_scale[n]);
  }
}

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint first_row = group * ROWS;
  const uint s = gl_SubgroupID;
  const uint a0 = s * TILE_A4, b0 = s * TILE_B4;
  // Columns past NUM_COLS stay zero: store_step never writes them.
  for (uint e = gl_SubgroupInvocationID; e < (16 - NUM_COLS) * STRIDE4; e += gl_SubgroupSize) {
    b_tiles[b0 + NUM_COLS * STRIDE4 + e] = f16vec4(0.0);
  }
  ACC c0 = ACC(0.0), c1 = ACC(0.0);  // rows 0..15 and 16..31 of the workgroup
  const uint steps = pc.cols / STEP;
  if (s < steps) fetch_step(s, first_row);
  for (uint step = s; step < steps; step += gl_NumSubgroups) {
    store_step(step, a0, b0);
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    if (step + gl_NumSubgroups < steps) fetch_step(step + gl_NumSubgroups, first_row);  // in flight during the products
    [[unroll]] for (uint kk = 0; kk < STEP_CHUNKS; ++kk) {
      MAT_B b;
      coopMatLoad(b, b_tiles, b0 + kk * 4, STRIDE4, gl_CooperativeMatrixLayoutColumnMajor);
      MAT_A a;
      coopMatLoad(a, a_tiles, a0 + kk * 4, STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
      c0 = coopMatMulAdd(a, b, c0);
      if (ROWS > 16) {
        coopMatLoad(a, a_tiles, a0 + 16 * STRIDE4 + kk * 4, STRIDE4, gl_CooperativeMatrixLayoutRowMajor);
        c1 = coopMatMulAdd(a, b, c1);
      }
    }
    subgroupBarrier();  // the tiles are refilled next step
  }
  coopMatStore(c0, partial, s * ROWS * 16, 16, gl_CooperativeMatrixLayoutColumnMajor);
  if (ROWS > 16) coopMatStore(c1, partial, s * ROWS * 16 + 256, 16, gl_CooperativeMatrixLayoutColumnMajor);
  barrier();
  for (uint e = gl_LocalInvocationID.x; e < ROWS * NUM_COLS; e += gl_WorkGroupSize.x) {
    const uint r = e % ROWS, c = e / ROWS;
    const uint row = first_row + r;
    if (row >= pc.rows) continue;
    float sum = 0.0;
    for (uint t = 0; t < gl_NumSubgroups; ++t) sum += partial[t * ROWS * 16 + (r / 16) * 256 + c * 16 + r % 16];
    const uint at = pc.y_offset + c * pc.y_stride + pc.row_base + row;
    y[at] = ACCUMULATE != 0 ? y[at] + sum : sum;
  }
}
