// Dequantizing matrix-vector product, y[c][row] (+)= sum_k W[row][k] * x[c][k], for NUM_COLS
// activation columns at once: the weights are read once for all columns, which is what makes
// batched prefill cheaper than one column at a time.
//
// One source, two builds (DESIGN.md, the `num_cols` axis):
//   spec:   NUM_COLS is exactly the column count; every loop below has a constant trip count.
//   shared: NUM_COLS is MAX_COLS (32 or 64) and the active count comes in a push constant, so
//           the accumulators for MAX_COLS columns are live even for one column: the register
//           pressure that specialization removes.
//
// The including file defines, for its weight format:
//   WEIGHTS_PER_SLOT  weights one thread handles per step (8 or 16)
//   SLOTS_PER_BLOCK   steps per quantization block
//   BLOCKS_PER_ROW(cols)
//   void accumulate_slot(uint r, uint row, uint block, uint slot) adding into acc[r * NUM_COLS + c]
//     for every active column c, through FOR_EACH_COLUMN (defined here)
// and binds the weights at binding 0.
//
// Each thread takes UNROLL slots of each of the ROWS rows per loop step, in straight-line code
// (rows past the end compute on the last row and are never written), so that the driver can
// send their loads out together instead of one slot's at a time. The row loop, and the column
// loop unless ROLLED_COLUMNS, are unrolled so that acc[] is indexed by constants and stays in
// registers: rolled, NVIDIA's driver (580) kept the 8-column accumulators of Q4_K in local memory.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(constant_id = 0) const int NUM_COLS = 1;    // columns (spec) or MAX_COLS (shared)
layout(constant_id = 1) const int SHARED = 0;      // 1: active column count from push constants
layout(constant_id = 3) const int ROWS = 2;        // rows per workgroup
layout(constant_id = 4) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)
layout(constant_id = 5) const int UNROLL = 1;      // slots per thread per loop step
layout(constant_id = 6) const int ROLLED_COLUMNS = 0;  // 1: the spec build's column loop stays rolled
layout(local_size_x_id = 2) in;                    // threads per workgroup (spec id 2)

layout(binding = 1) readonly buffer X { vec4 x4[]; };  // column c at c * x_stride floats
layout(binding = 2) buffer Y { float y[]; };            // column c at c * y_stride floats

layout(push_constant) uniform Push {
  uint rows;      // rows of this dispatch's weight slice
  uint cols;      // input length, a multiple of the block size
  uint ncols;     // active columns (shared build); equals NUM_COLS in the spec build
  uint x_stride;  // floats between x columns (a multiple of 4)
  uint y_stride;  // floats between y columns
  uint row_base;  // row index in y of the slice's first row
  uint x_offset;  // floats from the x binding's start to column 0 (a multiple of 4)
  uint y_offset;  // floats from the y binding's start to column 0
} pc;

#include "row_accumulators.glsl"

uint active_cols() { return SHARED != 0 ? pc.ncols : uint(NUM_COLS); }

// The format files' loop over the columns of a slot. Unrolled where the count is the constant
// NUM_COLS (spec) and ROLLED_COLUMNS is 0, so that acc[] is indexed by constants; rolled where
// the count comes at run time (shared) or the spec build asks for it. Which is faster depends
// on the format and the count (H200, 64 columns: Q4_K's unrolled loop keeps 128 accumulators
// live and takes 3x the rolled loop's time, while F16 and Q6_K take half), so the choice is a
// tuning field (DmmvTuning::columns). Unrolled with an exit per column, the shared build's 64
// columns of Q4_K took lavapipe's LLVM minutes to compile, and its Q8_0 ran 1.5x slower.
#define FOR_EACH_COLUMN(c, STATEMENT)                                 \
  if (SHARED == 0 && ROLLED_COLUMNS == 0) {                           \
    [[unroll]] for (int c = 0; c < NUM_COLS; ++c) { STATEMENT; }      \
  } else {                                                            \
    for (int c = 0; c < NUM_COLS; ++c) {                              \
      if (uint(c) >= active_cols()) break;                            \
      STATEMENT;                                                      \
    }                                                                 \
  }

void accumulate_slot(uint r, uint row, uint block, uint slot);  // defined by the format file

// Adds slots s, s + T, ..., s + (N - 1) T of every row (T = threads).
#define ACCUMULATE_SLOTS(N)                                                                   \
  {                                                                                           \
    [[unroll]] for (int u = 0; u < (N); ++u) {                                                \
      const uint su = s + u * step;                                                           \
      [[unroll]] for (int r = 0; r < ROWS; ++r) {                                             \
        accumulate_slot(r, min(first_row + r, pc.rows - 1), su / SLOTS_PER_BLOCK, su % SLOTS_PER_BLOCK); \
      }                                                                                       \
    }                                                                                         \
  }

// x[c][k .. k+3] for a k that is a multiple of 4.
vec4 x_at(uint c, uint k) { return x4[(pc.x_offset + c * pc.x_stride + k) >> 2]; }

void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint first_row = group * ROWS;
  [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) acc[i] = 0.0;

  const uint slots = BLOCKS_PER_ROW(pc.cols) * SLOTS_PER_BLOCK;
  const uint step = gl_WorkGroupSize.x;
  uint s = gl_LocalInvocationID.x;
  for (; s + (UNROLL - 1) * step < slots; s += UNROLL * step) ACCUMULATE_SLOTS(UNROLL)
  for (; s < slots; s += step) ACCUMULATE_SLOTS(1)

  publish_partials();  // reduce over the workgroup (row_accumulators.glsl)
  const uint ncols = active_cols();
  for (uint i = gl_LocalInvocationID.x; i < ROWS * NUM_COLS; i += gl_WorkGroupSize.x) {
    const uint r = i / NUM_COLS;
    const uint c = i % NUM_COLS;
    const uint row = first_row + r;
    if (row >= pc.rows || c >= ncols) continue;
    const float total = workgroup_total(i);
    const uint at = pc.y_offset + c * pc.y_stride + pc.row_base + row;
    y[at] = ACCUMULATE != 0 ? y[at] + total : total;
  }
}
