// Op builder for the integer-dot DMMV (kernels/intdot/dmmv_intdot_*.comp): the projection of
// dmmv_op.h computed from activations quantized to int8 (quantize_x_op.h), with packed 4x8-bit
// integer dot products on the weights' own integer quants. Q8_0, Q4_K and Q6_K.
//
// Result: y[c][row] (+)= sum_k W[row][k] xhat[c][k], xhat the dequantized activations; against
// the float DMMV the difference is at most sum_k |W[row][k]| d(k) / 2 (d(k) the scale of k's
// block, about max|x| / 127), plus float32 rounding (tests/engine/kernels/dmmv_intdot_test.cpp
// measures it).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/projection.h"
#include "engine/ops/quantize_x_op.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// Column counts one dispatch handles (specialization constant NUM_COLS); larger counts are cut
// into these, largest first.
inline constexpr uint32_t kIntdotNumCols[] = {1, 2, 4, 8, 16};

// The cooperative-matrix kernel over the same inputs (kernels/coopmat_intdot/dmmv_coopmat_*.comp,
// Q8_0 and Q4_K): f16 matrix products of a dequantized weight tile, for several columns.
struct DmmvCoopmatTuning {
  uint32_t from_cols = 0;  // pieces of at least this many columns take it; 0 = none do
  uint32_t subgroups = 0;  // subgroups of 32 per workgroup, splitting K; 0 = the default
  uint32_t rows = 0;       // rows per workgroup, 16 or 32; 0 = the default
  uint32_t step = 0;       // weights of a row per K step, 64, 128 or 256 (dividing cols); 0 = the default
};

// The int8 matrix kernel over the same inputs (kernels/coopmat_intdot/dmmv_int8mat_*.comp, Q8_0
// and Q4_K): 16 x 8 x 32 int8 matrix products on the integer quants themselves, for pieces of
// 8 and 16 columns. It goes before the f16 matrix kernel where both would take a piece. A row
// slice of fewer rows than a workgroup's stays on the integer dot. With splits > 1 each row
// group's K is split across that many workgroups (dmmv_int8mat_*_split.comp), whose last to
// finish adds their sums in a fixed order: for wide rows, whose row groups alone are too few.
struct DmmvInt8MatTuning {
  uint32_t from_cols = 0;  // pieces of 8 or 16 columns, at least this many, take it; 0 = none do
  uint32_t max_cols = 0;   // ... of rows of at most this many inputs; 0 = any
  // 0 below: the default for the piece's width and the matrix's rows (default_dmmv_int8mat_tuning)
  uint32_t subgroups = 0;  // subgroups per workgroup, splitting K: 1..16
  uint32_t rows = 0;       // rows per workgroup, 16, 32 or 64
  uint32_t step = 0;       // 32-weight blocks per K step, 2, 4 or 8
  uint32_t splits = 0;     // workgroups splitting each row group's K: 1 (none), 2, 4 or 8
};

struct DmmvIntdotTuning {
  uint32_t threads = 0;  // workgroup size; 0 = the default
  uint32_t rows = 0;     // rows per workgroup; 0 = the default
  uint32_t unroll = 0;   // chunks per thread loaded before any is used; 0 = the default
  // weights per chunk: Q4_K 64, 32 (dmmv_intdot_q4_k32) or 16 (dmmv_intdot_q4_k16), Q8_0 16 or 32
  // (dmmv_intdot_q8_032); 0 = the default
  uint32_t chunk = 0;
  DmmvCoopmatTuning matrix;  // which pieces run on the matrix units instead, and their shape
  DmmvInt8MatTuning int8_matrix;  // which pieces take the int8 matrix kernel, and its shape
  uint32_t num_cols = 0;  // the experts' kernel only: assignments per pass; 0 = kMoeIntdotNumCols
  // The experts' kernel only: invocations per row team, each team its own `rows` rows (a power
  // of two dividing threads); 0 = the engine's (moe_dmmv_intdot_tuning), threads = one team.
  uint32_t lanes = 0;
};

// Rows of more inputs than this are wide (ffn_down: 14336 inputs in llama3-8b, 12288 in
// qwen3-8b): their default shapes differ at some column counts.
inline constexpr uint32_t kIntdotWideCols = 8192;

// The workgroup shape (and for Q4_K the chunk) a dispatch of `ncols` columns of rows of `cols`
// inputs defaults to (see the source for the measurement behind it).
DmmvIntdotTuning default_dmmv_intdot_tuning(WeightFormat format, uint32_t ncols, uint32_t cols);

// The cooperative-matrix kernel's default shape for `format` (one for every width), and in
// from_cols the narrowest piece the engine gives it (see the source for the measurement).
DmmvCoopmatTuning default_dmmv_coopmat_tuning(WeightFormat format);

// "dmmv_coopmat_q4_k", "dmmv_coopmat_q8_0"; null for other formats.
const char* dmmv_coopmat_kernel_name(WeightFormat format);

// Shared memory of the cooperative-matrix kernel in shape `t` (no zeros): per subgroup a
// rows x (step + 8) and a 16 x (step + 8) f16 tile and its rows x 16 float partial sums.
uint32_t dmmv_coopmat_shared_bytes(const DmmvCoopmatTuning& t);

// True when the cooperative-matrix kernel for `format` was compiled in and runs here: the
// integer-dot path is supported, the device multiplies 16 x 16 x 16 f16 into f32 per subgroup,
// its subgroups are 32 or 64 wide, and the shape `t` (its defaults where 0) fits its shared
// memory and workgroup size.
bool dmmv_coopmat_supported(const DeviceInfo& info, WeightFormat format, const DmmvCoopmatTuning& t = {});

// Matrices of at least this many rows are tall: the int8 matrix kernel's default shapes differ.
inline constexpr uint32_t kIntdotTallRows = 8192;

// The int8 matrix kernel's default shape for `format` at `ncols` (8 or 16) columns on a matrix
// of `rows` rows of `cols` inputs, and in from_cols the pieces the engine gives it
// (see the source for the measurement). Rows of more than kIntdotWideCols inputs split K in
// four where their steps divide so, else in two, else not.
DmmvInt8MatTuning default_dmmv_int8mat_tuning(WeightFormat format, uint32_t ncols, uint32_t rows, uint32_t cols);

// "dmmv_int8mat_q4_k", "dmmv_int8mat_q8_0"; null for other formats.
const char* dmmv_int8mat_kernel_name(WeightFormat format);

// Shared memory of `format`'s int8 matrix kernel in shape `t` (no zeros) for `ncols` columns:
// the position tile, and per subgroup its staged tiles, its scale tables and its float sums.
uint32_t dmmv_int8mat_shared_bytes(WeightFormat format, const DmmvInt8MatTuning& t, uint32_t ncols);

// True when the int8 matrix kernel for `format` was compiled in and runs here: the integer-dot
// path is supported, the device multiplies 16 x 8 x 32 int8 into int32 per subgroup, its
// subgroups are 32 wide, and the shape `t` fits at `ncols` columns (with every default shape of
// that width in the fields it leaves 0).
bool dmmv_int8mat_supported(const DeviceInfo& info, WeightFormat format, const DmmvInt8MatTuning& t = {},
                            uint32_t ncols = 8);

// What the engine asks of dmmv_intdot_ops on this device: the default shapes, and pieces from
// DmmvCoopmatTuning's default column count on the matrix units where `allow_coopmat` and the
// device and the build allow it.
DmmvIntdotTuning dmmv_intdot_choice(const DeviceInfo& info, WeightFormat format, bool allow_coopmat);

// Mirrors the push-constant block of kernels/include/dmmv_intdot_common.glsl.
struct DmmvIntdotPush {
  uint32_t rows;       // rows of this dispatch's weight slice
  uint32_t cols;       // input length
  uint32_t y_stride;   // floats between y columns
  uint32_t row_base;   // y row of the slice's first row
  uint32_t y_offset;   // floats from the y binding's start to column 0
  uint32_t xq_offset;  // uvec4s from the quants binding's start to column 0
  uint32_t xs_offset;  // vec2s from the scales binding's start to column 0
};

// "dmmv_intdot_q4_k", ...; null for a format without an integer-dot kernel (F32, F16). Q4_K
// has two more, "dmmv_intdot_q4_k16" and "dmmv_intdot_q4_k32", chosen by chunk = 16 or 32, and
// Q8_0 "dmmv_intdot_q8_032", chosen by chunk = 32.
const char* dmmv_intdot_kernel_name(WeightFormat format, uint32_t chunk = 0);

// True when `format` has an integer-dot kernel, it and quantize_x were compiled in, and the
// device has shaderIntegerDotProduct (enabled by the harness when present).
bool dmmv_intdot_supported(const DeviceInfo& info, WeightFormat format);

// Throws UsageError saying what is missing when the integer-dot path cannot run here: kernels
// not compiled in (glslang without GL_EXT_integer_dot_product), or a device without
// shaderIntegerDotProduct.
void require_dmmv_intdot(const DeviceInfo& info);

// The ops computing `problem` from its activations quantized into `x` (where x.rms is set, an
// RMSNorm's output whose division by the RMS is left to this projection: one column, the
// default shape and chunk, kernels dmmv_intdot_<fmt>_rms) (problem.x and
// problem.x_stride are not read: quantize_x_ops reads them). One op per column piece and per
// row slice, as dmmv_ops. Throws UsageError for a format without an integer-dot kernel, a
// kernel that was not compiled in, cols not a multiple of the block (256 for Q4_K and Q6_K; 64
// for Q8_0, whose 34-byte blocks are read as words from rows starting on 4 bytes), an `x` of
// other cols or fewer columns, or a tuning the kernels cannot run (the matrix pieces'
// device support is the caller's: dmmv_coopmat_supported).
//
// `split_sums`: binding 4 of the int8 matrix kernel's K-split form, zeroed before first use
// (each dispatch leaves it so); the ops carve a region per piece and row slice out of it, so
// that the pieces of one projection do not order each other. It must hold
// dmmv_int8mat_split_bytes(problem, tuning, limits) bytes where that is above zero (UsageError
// otherwise).
std::vector<Op> dmmv_intdot_ops(const ProjectionProblem& problem, const QuantizedX& x, const BindingLimits& limits,
                                const DmmvIntdotTuning& tuning = {}, const TensorView& split_sums = {});

// Bytes of `split_sums` that dmmv_intdot_ops(problem, x, limits, tuning) needs: 0 where no piece
// splits K.
uint64_t dmmv_int8mat_split_bytes(const ProjectionProblem& problem, const DmmvIntdotTuning& tuning,
                                  const BindingLimits& limits);

// The RMSNorm after a residual projection, written by the projection (norm_placement:
// producer; kernels/include/dmmv_intdot_norm_epilogue.glsl): y * weight in int8 blocks into
// `out`, and the sum of y^2 of each block into out.rms's block_squares, y the projection's new
// output. The projections that read `out` divide by the RMS (dmmv_intdot_ops, x.rms set).
struct NormEpilogue {
  TensorView weight;     // the norm's weights: rows floats
  QuantizedX out;        // one column of `rows`; out.rms set
  bool add_one = false;  // the norm multiplies by 1 + weight (Gemma, Qwen3.5: RmsNormProblem::add_one)
};

// Specializes a norm-writing producer's kernel for `norm` (its NORM_ADD_ONE, constant 11 of
// kernels/include/norm_weight_add_one.glsl): every builder of a producer calls it.
void specialize_norm_epilogue(Op& op, const NormEpilogue& norm);

// Workgroups of the norm-writing projection: teams of 32 invocations of kNormEpilogueTeamRows
// rows each, 32 rows (one block of the norm's output) per workgroup.
inline constexpr uint32_t kNormEpilogueTeamRows = 2;

// The residual projection `p` (accumulate, one column, rows a multiple of 32, one row slice)
// from `x` that also writes `norm`: one op (kernels dmmv_intdot_<fmt>_norm). Throws UsageError
// naming what does not hold.
Op dmmv_intdot_norm_op(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                       const NormEpilogue& norm);

// The gated linear unit after the stacked gate and up projection, applied by the projection
// (glu_placement: producer; kernels/include/dmmv_intdot_glu_epilogue.glsl): act = glu(gate, up)
// in int8 blocks into `out`. Gate, up and act are not written as floats: the down projection,
// which reads `out`, is their only reader.
struct GluEpilogue {
  GluActivation activation = GluActivation::Silu;
  QuantizedX out;  // one column of rows / 2, no rms
};

// Rows of a team of the GLU-applying projection: half gate, half the matching up rows, so a
// workgroup of 32 * 32 / (kGluEpilogueTeamRows / 2) invocations owns a block of 32 act values.
inline constexpr uint32_t kGluEpilogueTeamRows = 4;

// The stacked gate and up projection `p` (rows: n gate then n up, n a multiple of 32; one
// column; no accumulate; one row slice) from `x` (x.rms set: gate and up are divided by the
// RMS first) that also writes `glu`: one op (kernels dmmv_intdot_<fmt>_glu). Throws UsageError
// naming what does not hold.
Op dmmv_intdot_glu_op(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                      const GluEpilogue& glu);

}  // namespace pb
