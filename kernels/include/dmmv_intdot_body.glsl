// Integer-dot matrix-vector product over quantized activations (quantize_x.comp):
// y[c][row] (+)= sum_k W[row][k] * xhat[c][k], xhat = the dequantized activations. Weights stay
// in their integer form, 4 products per dotPacked4x8EXT, and the block scales are applied once
// per 16 or 32 weights: the per-weight int -> float conversion of the float DMMV is gone, and
// the activations are 1.25 bytes per element instead of 4.
//
// Work is cut into chunks of weight quants (16 bytes, or 32 for Q4_K's 64-weight chunks: the
// format file says), and consecutive threads take consecutive chunks of a row, so a subgroup's
// loads stay within few cache lines (the float DMMV's per-thread strides cost L1 wavefronts).
// Each thread loads UNROLL chunks of each of the ROWS rows before it computes any, to keep
// enough bytes in flight per thread to cover DRAM latency; the activations of a chunk are
// loaded once per column and serve all ROWS rows.
//
// The loops over rows, columns and unrolled chunks carry [[unroll]] so that acc[] and the
// loaded chunks stay in registers: without it NVIDIA's driver (580) left the loops of 16
// columns rolled, and a Q4_K dispatch of 16 columns took 2.5x as long (153 vs 62 us on
// ffn_down 4096x14336, H200).
//
// NUM_COLS is the exact column count (spec only: the engine's `shared` builds exist to measure
// register pressure and are not repeated here).
//
// Fused forms, each a kernel of its own (intdot/dmmv_intdot_<fmt>_norm.comp, _rms.comp, _glu.comp):
//   DMMV_NORM_EPILOGUE  a residual projection (y += W x, one column) that also writes the int8
//                       input of the RMSNorm after it, whose division by the RMS is left to
//                       the consumer (dmmv_intdot_norm_epilogue.glsl)
//   DMMV_INPUT_RMS      a projection of such an input: it divides by the RMS
//                       (dmmv_intdot_input_rms.glsl)
//   DMMV_GLU_EPILOGUE   the stacked gate and up projection that writes the int8 input of the
//                       down projection, act = glu(gate, up) (dmmv_intdot_glu_epilogue.glsl)
// and the experts' forms, MOE_DMMV (intdot/moe_dmmv_intdot_<fmt>.comp,
// moe_dmmv_intdot_main.glsl): the routed experts' gate, up or down over a work list; with
// DMMV_GLU_EPILOGUE their gate and up with the SwiGLU (moe_dmmv_intdot_glu_main.glsl).
//
// Included after dmmv_intdot_common.glsl and a format file (dmmv_intdot_<fmt>.glsl), which
// defines, before this body:
//   CHUNKS_PER_ROW(cols)                          chunks per row
//   struct WeightChunk, struct XChunk             what one chunk of weights / activations holds
//   WeightChunk load_weights(uint row, uint chunk)
//   XChunk load_x(uint c, uint chunk)             column c's activations matching the chunk
//   float chunk_dot(WeightChunk w, XChunk x)      their dot product, scales applied
//   (or, for a kernel that defines DMMV_CHUNK_ADD, float chunk_add(float acc, w, x): acc plus it)
// and binds the weights at binding 0.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const int NUM_COLS = 1;    // activation columns of this dispatch
layout(constant_id = 3) const int ROWS = 2;        // rows per workgroup
layout(constant_id = 4) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)
layout(constant_id = 5) const int UNROLL = 2;      // chunks per thread whose loads go out together
layout(local_size_x_id = 2) in;                    // threads per workgroup (spec id 2)

// Coherent where another workgroup of the dispatch reads y back (moe_dmmv_intdot_acc_norm.glsl).
#ifdef MOE_ACC_NORM_EPILOGUE
layout(binding = 3) coherent buffer Y { float y[]; };  // column c at c * y_stride floats
#else
layout(binding = 3) buffer Y { float y[]; };  // column c at c * y_stride floats
#endif

#include "row_accumulators.glsl"

// The weight row of accumulator row r: first_row + r, clamped (rows past the end compute on the
// last row and are never written); in the GLU epilogue's stacked gate and up, gate rows for r
// below ROWS / 2 and the matching up rows, half_rows further, above.
#if defined(MOE_DMMV) && defined(DMMV_GLU_EPILOGUE)
uint gate_row0, up_row0;  // the item's expert's first gate and up rows (moe_dmmv_intdot_glu_main.glsl)
#define DMMV_ROW(r) ((r) < ROWS / 2 ? gate_row0 + first_row + uint(r) : up_row0 + first_row + uint(r) - uint(ROWS / 2))
#elif defined(DMMV_GLU_EPILOGUE)
#define DMMV_ROW(r) ((r) < ROWS / 2 ? first_row + uint(r) : half_rows + first_row + uint(r) - uint(ROWS / 2))
#elif defined(MOE_DMMV)
#define DMMV_ROW(r) (weight_row0 + min(first_row + uint(r), pc.rows - 1))
#else
#define DMMV_ROW(r) min(first_row + uint(r), pc.rows - 1)
#endif

// Adds one chunk's product to an accumulator: chunk_dot, or where the kernel defines
// DMMV_CHUNK_ADD, the format file's chunk_add (only dmmv_intdot_q4_k.glsl has one).
#ifdef DMMV_CHUNK_ADD
#define ADD_CHUNK(a, w, x) a = chunk_add(a, w, x)
#else
#define ADD_CHUNK(a, w, x) a += chunk_dot(w, x)
#endif

// Adds chunks first, first + S, ..., first + (N - 1) S of every row (S = step: the threads
// that share a row's chunks).
#define ACCUMULATE_CHUNKS(N)                                                          \
  {                                                                                   \
    WeightChunk wc[(N) * ROWS];                                                       \
    [[unroll]] for (int u = 0; u < (N); ++u) {                                        \
      [[unroll]] for (int r = 0; r < ROWS; ++r) {                                     \
        wc[u * ROWS + r] = load_weights(DMMV_ROW(r), first + u * step);               \
      }                                                                               \
    }                                                                                 \
    [[unroll]] for (int u = 0; u < (N); ++u) {                                        \
      [[unroll]] for (int c = 0; c < NUM_COLS; ++c) {                                 \
        const XChunk xc = load_x(c, first + u * step);                                \
        [[unroll]] for (int r = 0; r < ROWS; ++r) ADD_CHUNK(acc[r * NUM_COLS + c], wc[u * ROWS + r], xc); \
      }                                                                               \
    }                                                                                 \
  }

#ifdef DMMV_INPUT_RMS
#include "dmmv_intdot_input_rms.glsl"
#endif
#ifdef DMMV_OUTPUT_GATE
// y += (W x) * sigmoid(g[c]): Qwen3.5's shared expert, its output gated by one scalar per
// token and added into the residual (engine/ops/dmmv_intdot_gated_op.h), with
// sigmoid_mul.comp's expression, so that one dispatch does what the projection, sigmoid_mul
// and add_in_place did.
layout(binding = 4) readonly buffer OutputGate { float output_gate[]; };  // column c's at c
#endif

#if defined(MOE_DMMV) && defined(DMMV_GLU_EPILOGUE)
#include "moe_dmmv_intdot_glu_main.glsl"
#elif defined(MOE_DMMV)
#include "moe_dmmv_intdot_main.glsl"
#elif defined(DMMV_NORM_EPILOGUE)
#include "dmmv_intdot_norm_epilogue.glsl"
#elif defined(DMMV_GLU_EPILOGUE)
#include "dmmv_intdot_glu_epilogue.glsl"
#else
void main() {
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint first_row = group * ROWS;
#ifdef DMMV_INPUT_RMS
  const float inv_rms = input_inv_rms();
#endif
  [[unroll]] for (int i = 0; i < ROWS * NUM_COLS; ++i) acc[i] = 0.0;

  const uint chunks = CHUNKS_PER_ROW(pc.cols);
  const uint step = gl_WorkGroupSize.x;
  uint first = gl_LocalInvocationID.x;
  for (; first + (UNROLL - 1) * step < chunks; first += UNROLL * step) ACCUMULATE_CHUNKS(UNROLL)
  for (; first < chunks; first += step) ACCUMULATE_CHUNKS(1)

  publish_partials();  // reduce over the workgroup (row_accumulators.glsl)
  for (uint i = gl_LocalInvocationID.x; i < ROWS * NUM_COLS; i += gl_WorkGroupSize.x) {
    const uint r = i / NUM_COLS;
    const uint c = i % NUM_COLS;
    const uint row = first_row + r;
    if (row >= pc.rows) continue;
#ifdef DMMV_INPUT_RMS
    const float total = workgroup_total(i) * inv_rms;
#else
    const float total = workgroup_total(i);
#endif
    const uint at = pc.y_offset + c * pc.y_stride + pc.row_base + row;
#ifdef DMMV_OUTPUT_GATE
    y[at] = y[at] + total / (1.0 + exp(-output_gate[c]));
#else
    y[at] = ACCUMULATE != 0 ? y[at] + total : total;
#endif
  }
}
#endif  // the epilogues
