#include "engine/ops/dmmv_intdot_op.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "engine/ops/matmul_op.h"
#include "engine/ops/row_slices.h"
#include "engine/quant/device_layout.h"
#include "engine/quant/integer_dot.h"
#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("dmmv_intdot: " + what);
}

// The largest count in kIntdotNumCols not above `left`.
uint32_t piece_cols(uint32_t left) {
  uint32_t count = 1;
  for (uint32_t n : kIntdotNumCols) {
    if (n <= left) count = n;
  }
  return count;
}

}  // namespace

const char* dmmv_intdot_kernel_name(WeightFormat format, uint32_t chunk) {
  switch (format) {
    case WeightFormat::Q8_0: return chunk == 32 ? "dmmv_intdot_q8_032" : "dmmv_intdot_q8_0";
    case WeightFormat::Q4_K: return chunk == 16 ? "dmmv_intdot_q4_k16" : chunk == 32 ? "dmmv_intdot_q4_k32" : "dmmv_intdot_q4_k";
    case WeightFormat::Q6_K: return "dmmv_intdot_q6_k";
    default: return nullptr;
  }
}

// From the dmmv_intdot_tuning sweep on an NVIDIA H200 (docs/GPU_FIGURES.md: the fastest shape
// summed over ffn_up 14336x4096 and ffn_down 4096x14336, one run each, or the previous default
// where that was within 1% of it) per column count, in the order of kIntdotNumCols (1, 2, 4,
// 8, 16). Q4_K took 16-weight chunks from four columns up: their activation loads are
// contiguous across a warp, which pays once several columns share each weight load, while
// one column wants the 64-weight chunks' single scale decode per 64 weights.
//
// Sub-block and whole-block chunks (dmmv_intdot_q4_k32, dmmv_intdot_q8_032) replaced a shape
// where the later sweep with them (docs/GPU_FIGURES.md) found one more than 3% faster, summed
// over attn 4096x4096 and ffn_up 14336x4096 for rows of 4096 inputs, and on ffn_down 4096x14336
// alone for wide rows (more than kIntdotWideCols inputs): Q4_K from 2 to 8 columns (8 columns
// ffn_up 39.9 -> 33.3 us, ffn_down 33.6 -> 28.9), Q8_0 on wide rows at 4 and 8 columns (8
// columns ffn_down 40.7 -> 29.2; on 4096 inputs whole blocks were slower at 4 and 8 columns and
// within 3% at 1 and 2). Neither wins at one column, where the 64-weight Q4_K chunk stays. A
// wider sweep at 8 columns (threads 32 or 64, rows 1 to 4, unroll 1 to 4) moved Q4_K on 4096
// inputs to one chunk per step (attn 15.3 -> 14.0 us, ffn_up 33.3 -> 31.5). Each change was
// confirmed against the old shape with medians of 5. After Q8_0 and Q6_K moved to their device
// layouts (engine/quant/device_layout.h), re-sweeps at 1 to 8 columns (medians of 3, H200)
// moved Q8_0 on wide rows at 2 columns to 128 threads x 1 row (ffn_down 19.65 -> 18.77 us), and
// Q6_K, whose old shapes from 2 columns up had become up to 47% slower than the old layout's
// (attn at 8 columns 16.9 -> 24.8 us), to the sweep's best from 2 to 8 columns, with a table of
// its own for wide rows (8 columns: ffn_down 57.7 -> 37.8 us, ffn_up 54.6 -> 42.5, attn 24.8
// -> 20.6, which stays above the old layout's 16.9). A wider candidate list (threads up to 512,
// unroll 4, rows 3, 6, 8) moved Q8_0 on wide rows at one column to 256 threads on one row
// (ffn_down 17.50 -> 17.18 us on an H200, two rounds; nothing beat the 8-column shape).
DmmvIntdotTuning default_dmmv_intdot_tuning(WeightFormat format, uint32_t ncols, uint32_t cols) {
  using T = DmmvIntdotTuning;
  static constexpr T kQ8_0[] = {{128, 1, 2}, {32, 2, 2}, {32, 2, 2}, {32, 2, 2}, {32, 1, 1}};
  static constexpr T kQ8_0Wide[] = {{256, 1, 2}, {128, 1, 2}, {64, 4, 2, 32}, {64, 4, 2, 32}, {32, 1, 1}};
  static constexpr T kQ4_K[] = {{32, 2, 2, 64}, {32, 2, 2, 32}, {32, 2, 2, 32}, {32, 2, 1, 32}, {32, 4, 2, 16}};
  static constexpr T kQ4_KWide[] = {{32, 2, 2, 64}, {64, 4, 1, 64}, {64, 4, 2, 32}, {64, 2, 1, 32}, {32, 4, 2, 16}};
  static constexpr T kQ6_K[] = {{64, 2, 2}, {32, 2, 2}, {64, 2, 1}, {64, 2, 1}, {64, 4, 1}};
  static constexpr T kQ6_KWide[] = {{64, 2, 2}, {64, 2, 2}, {128, 2, 2}, {64, 8, 1}, {64, 4, 1}};
  size_t i = 0;
  while (i + 1 < std::size(kIntdotNumCols) && kIntdotNumCols[i] < ncols) ++i;
  const bool wide = cols > kIntdotWideCols;
  switch (format) {
    case WeightFormat::Q8_0: return wide ? kQ8_0Wide[i] : kQ8_0[i];
    case WeightFormat::Q4_K: return wide ? kQ4_KWide[i] : kQ4_K[i];
    case WeightFormat::Q6_K: return wide ? kQ6_KWide[i] : kQ6_K[i];
    default: return {64, 2, 2};
  }
}

const char* dmmv_coopmat_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q8_0: return "dmmv_coopmat_q8_0";
    case WeightFormat::Q4_K: return "dmmv_coopmat_q4_k";
    default: return nullptr;
  }
}

// From the dmmv_coopmat_tuning sweep on an NVIDIA H200 (docs/GPU_FIGURES.md): the fastest
// shape summed over ffn_down 4096x14336 and ffn_up 14336x4096 at 16 columns, where the matrix
// kernel beats the integer dot (Q4_K 89 against 135 us, Q8_0 110 against 129). At 8 columns
// they tie for Q4_K and the integer dot wins for Q8_0, so pieces take it from 16 columns.
DmmvCoopmatTuning default_dmmv_coopmat_tuning(WeightFormat format) {
  return format == WeightFormat::Q8_0 ? DmmvCoopmatTuning{16, 4, 16, 128} : DmmvCoopmatTuning{16, 8, 16, 64};
}

uint32_t dmmv_coopmat_shared_bytes(const DmmvCoopmatTuning& t) {
  return t.subgroups * ((t.rows + 16) * (t.step + 8) * 2 + t.rows * 16 * 4);
}

namespace {

// The requested shape with the defaults filled in. The default steps (at most 256 weights)
// divide every width the integer-dot path takes (integer_dot_cols_multiple: 256).
DmmvCoopmatTuning coopmat_shape(WeightFormat format, const DmmvCoopmatTuning& requested) {
  const DmmvCoopmatTuning d = default_dmmv_coopmat_tuning(format);
  const uint32_t step = requested.step ? requested.step : d.step;
  return {requested.from_cols, requested.subgroups ? requested.subgroups : d.subgroups,
          requested.rows ? requested.rows : d.rows, step};
}

bool coopmat_shape_valid(const DmmvCoopmatTuning& t) {
  return t.subgroups >= 1 && t.subgroups <= 16 && (t.rows == 16 || t.rows == 32) &&
         (t.step == 64 || t.step == 128 || t.step == 256);
}

}  // namespace

bool dmmv_coopmat_supported(const DeviceInfo& info, WeightFormat format, const DmmvCoopmatTuning& requested) {
  const char* name = dmmv_coopmat_kernel_name(format);
  if (name == nullptr || find_kernel(name) == nullptr || !dmmv_intdot_supported(info, format)) return false;
  if (!has_coopmat_f16_16x16x16(info) || (info.subgroup_size != 32 && info.subgroup_size != 64)) return false;
  const DmmvCoopmatTuning t = coopmat_shape(format, requested);
  return coopmat_shape_valid(t) && (t.subgroups * 32) % info.subgroup_size == 0 &&
         t.subgroups * 32 <= info.max_workgroup_invocations &&
         dmmv_coopmat_shared_bytes(t) <= info.max_compute_shared_memory;
}

// From the dmmv_int8mat_tuning sweep on an NVIDIA H200 (docs/GPU_FIGURES.md, medians of 3): the
// fastest shape on ffn_up 14336x4096 for tall matrices (at least kIntdotTallRows rows) and on
// attn 4096x4096 for the others. Tall ones take 64-row workgroups of few subgroups, whose
// larger steps keep more bytes in flight per subgroup; shorter ones need more, smaller
// workgroups to fill the GPU. At 8 columns the kernel then beats the integer dot (Q4_K ffn_up
// 31.7 -> 27.0 us, attn 13.9 -> 11.3; Q8_0 31.4 -> 28.6, 12.9 -> 11.4), and at 16 the f16
// matrix kernel on tall matrices (Q4_K 46.0 -> 36.4, Q8_0 50.4 -> 38.2; attn ties at 15.6).
// Rows of more than kIntdotWideCols inputs: ffn_down 4096x14336 has too few rows for workgroups
// that each read all of K, and took 33 us at its best against the integer dot's 28.8. With K
// split across workgroups (the split sums cold, as in a forward pass) the fastest shapes were,
// for both formats, 4 x 64 x 2 in four splits at 8 columns (Q4_K 27.4 us against the integer
// dot's 29.0, Q8_0 27.8 against 28.6) and 4 x 32 x 2 in two at 16 (Q4_K 35.7 against the f16
// matrix kernel's 43.8, Q8_0 35.0 against 45.1). A split that does not divide the row's steps
// falls back to fewer, down to none (which keeps the piece off it: int8mat_piece).
DmmvInt8MatTuning default_dmmv_int8mat_tuning(WeightFormat format, uint32_t ncols, uint32_t rows, uint32_t cols) {
  const bool q4_k = format == WeightFormat::Q4_K;
  // (subgroups, rows, step, the splits wanted)
  const auto shape = [&](uint32_t subgroups, uint32_t rows_per_group, uint32_t step, uint32_t wanted = 1) {
    uint32_t splits = wanted;
    while (splits > 1 && cols % (splits * step * 32) != 0) splits /= 2;
    return DmmvInt8MatTuning{8, 0, subgroups, rows_per_group, step, splits};
  };
  if (cols > kIntdotWideCols) return ncols == 8 ? shape(4, 64, 2, 4) : shape(4, 32, 2, 2);
  if (rows < kIntdotTallRows) return ncols == 8 ? shape(8, 32, 2) : shape(8, 16, 2);
  if (ncols == 8) return q4_k ? shape(2, 64, 4) : shape(4, 64, 2);
  return q4_k ? shape(2, 64, 2) : shape(2, 32, 2);
}

const char* dmmv_int8mat_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q8_0: return "dmmv_int8mat_q8_0";
    case WeightFormat::Q4_K: return "dmmv_int8mat_q4_k";
    default: return nullptr;
  }
}

void specialize_norm_epilogue(Op& op, const NormEpilogue& norm) {
  constexpr uint32_t kNormAddOneId = 11;
  if (norm.add_one) op.spec.set(kNormAddOneId, 1);
}

uint32_t dmmv_int8mat_shared_bytes(WeightFormat format, const DmmvInt8MatTuning& t, uint32_t ncols) {
  // Per subgroup: weight tiles (rows of 48 bytes), activation tiles (columns of 48 bytes), the
  // row and column scale tables (an entry of 8 bytes, (mul, min), where the weights have mins;
  // of 4 for Q8_0's scale alone) and the float sums.
  const uint32_t entry = format == WeightFormat::Q8_0 ? 4 : 8;
  const uint32_t per_subgroup = t.rows * t.step * 48 + ncols * t.step * 48 + (t.rows + ncols) * t.step * entry +
                                t.rows * ncols * 4;
  return 128 * 4 + t.subgroups * per_subgroup;
}

namespace {

// The requested int8 matrix shape for `ncols` columns of a matrix of `rows` rows of `cols`
// inputs, with the defaults for those (default_dmmv_int8mat_tuning) filled in.
DmmvInt8MatTuning int8mat_shape(WeightFormat format, const DmmvInt8MatTuning& requested, uint32_t ncols,
                                uint32_t rows, uint32_t cols) {
  const DmmvInt8MatTuning d = default_dmmv_int8mat_tuning(format, ncols, rows, cols);
  return {requested.from_cols, requested.max_cols, requested.subgroups ? requested.subgroups : d.subgroups,
          requested.rows ? requested.rows : d.rows, requested.step ? requested.step : d.step,
          requested.splits ? requested.splits : d.splits};
}

bool int8mat_shape_valid(const DmmvInt8MatTuning& t) {
  return t.subgroups >= 1 && t.subgroups <= 16 && (t.rows == 16 || t.rows == 32 || t.rows == 64) &&
         (t.step == 2 || t.step == 4 || t.step == 8) && (t.splits == 1 || t.splits == 2 || t.splits == 4 || t.splits == 8);
}

// Bytes of the split sums one op of `count` columns over `rows` rows takes in shape `t`: an
// arrival counter per row group (on 16 bytes), then a slot of t.rows x count floats per row
// group and split (dmmv_int8mat_body.glsl); 0 without a split.
uint64_t split_region_bytes(const DmmvInt8MatTuning& t, uint32_t count, uint32_t rows) {
  if (t.splits <= 1) return 0;
  const uint64_t groups = ceil_div(rows, t.rows);
  return (groups + 3) / 4 * 16 + groups * t.splits * t.rows * count * 4;
}

uint64_t aligned_up(uint64_t bytes, uint64_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

// The shape a piece of `count` columns of `p` takes on the int8 matrix kernel under `requested`,
// or none where it stays off it: pieces of 8 and 16 columns from requested.from_cols, on rows
// of at most max_cols inputs, except wide rows whose K the defaults cannot split (each
// workgroup would read all of it: slower than the integer dot). Throws UsageError for a
// requested split that does not divide the row's steps.
std::optional<DmmvInt8MatTuning> int8mat_piece(const ProjectionProblem& p, const DmmvInt8MatTuning& requested,
                                               uint32_t count) {
  if (requested.from_cols == 0 || count < requested.from_cols || (count != 8 && count != 16)) return std::nullopt;
  if (requested.max_cols != 0 && p.cols > requested.max_cols) return std::nullopt;
  const DmmvInt8MatTuning t = int8mat_shape(p.format, requested, count, p.rows, p.cols);
  if (p.cols > kIntdotWideCols && t.splits == 1 && requested.splits == 0) return std::nullopt;
  require(p.cols % (t.splits * t.step * 32) == 0,
          "the int8 matrix kernel's " + std::to_string(t.splits) + " splits of K need cols (" + std::to_string(p.cols) +
              ") a multiple of splits x step x 32 = " + std::to_string(t.splits * t.step * 32));
  return t;
}

bool has_coopmat_s8_16x8x32(const DeviceInfo& info) {
  if (!info.caps.cooperative_matrix) return false;
  return std::any_of(info.coopmat_shapes.begin(), info.coopmat_shapes.end(), [](const CoopMatShape& s) {
    return s.m == 16 && s.n == 8 && s.k == 32 && s.a_type == "s8" && s.b_type == "s8" && s.c_type == "s32" &&
           s.result_type == "s32" && s.scope == "subgroup";
  });
}

}  // namespace

bool dmmv_int8mat_supported(const DeviceInfo& info, WeightFormat format, const DmmvInt8MatTuning& requested,
                            uint32_t ncols) {
  const char* name = dmmv_int8mat_kernel_name(format);
  if (name == nullptr || find_kernel(name) == nullptr || !dmmv_intdot_supported(info, format)) return false;
  if (!has_coopmat_s8_16x8x32(info) || info.subgroup_size != 32) return false;
  // Every default shape must fit where the requested one leaves fields to them: short, tall and
  // wide matrices' (the last with the K-split kernel).
  for (const auto& [rows, cols] : {std::pair{1u, 256u}, std::pair{kIntdotTallRows, 256u}, std::pair{1u, 4 * kIntdotWideCols}}) {
    const DmmvInt8MatTuning t = int8mat_shape(format, requested, ncols, rows, cols);
    if (!(int8mat_shape_valid(t) && (ncols == 8 || ncols == 16) && t.subgroups * 32 <= info.max_workgroup_invocations &&
          dmmv_int8mat_shared_bytes(format, t, ncols) <= info.max_compute_shared_memory)) {
      return false;
    }
    if (t.splits > 1 && find_kernel(std::string(name) + "_split") == nullptr) return false;
  }
  return true;
}

DmmvIntdotTuning dmmv_intdot_choice(const DeviceInfo& info, WeightFormat format, bool allow_coopmat) {
  DmmvIntdotTuning t;
  if (allow_coopmat && dmmv_coopmat_supported(info, format)) {
    t.matrix.from_cols = default_dmmv_coopmat_tuning(format).from_cols;
  }
  if (allow_coopmat && dmmv_int8mat_supported(info, format, {}, 8) && dmmv_int8mat_supported(info, format, {}, 16)) {
    t.int8_matrix.from_cols = default_dmmv_int8mat_tuning(format, 8, kIntdotTallRows, 256).from_cols;
  }
  return t;
}

bool dmmv_intdot_supported(const DeviceInfo& info, WeightFormat format) {
  const char* name = dmmv_intdot_kernel_name(format);
  return info.caps.integer_dot_product && name != nullptr && find_kernel(name) != nullptr &&
         find_kernel("quantize_x") != nullptr;
}

void require_dmmv_intdot(const DeviceInfo& info) {
  if (find_kernel("quantize_x") == nullptr) {
    throw UsageError(
        "dmmv_activations int8: the integer-dot kernels were not compiled in (this build's glslang lacks "
        "GL_EXT_integer_dot_product; run scripts/setup --glslang-from-source, then rebuild)");
  }
  if (!info.caps.integer_dot_product) {
    throw UsageError("dmmv_activations int8: device '" + info.name +
                     "' has no shaderIntegerDotProduct; use dmmv_activations float");
  }
}

namespace {

// Binding 4 and spec constant 6 of a kernel that divides by a deferred norm's RMS
// (dmmv_intdot_input_rms.glsl): the block squares of its `cols` inputs and the epsilon.
void bind_deferred_rms(Op& op, const DeferredRms& rms, uint32_t cols) {
  op.bindings.push_back(rms.block_squares.slice(0, uint64_t(cols / kQuantizedXBlock) * 4).read());
  op.spec.set(6, std::bit_cast<int32_t>(rms.eps));
}

// The specialization constants both matrix kernels share (dmmv_coopmat_body.glsl,
// dmmv_int8mat_body.glsl): columns, subgroups of 32 and the workgroup size, rows, accumulate,
// and the K step (in weights for the f16 kernel, in blocks of 32 for the int8 one).
void set_matrix_spec(Op& op, uint32_t ncols, uint32_t subgroups, uint32_t rows, bool accumulate, uint32_t step) {
  op.spec.set(0, static_cast<int32_t>(ncols))
      .set(1, static_cast<int32_t>(subgroups))
      .set(2, static_cast<int32_t>(32 * subgroups))
      .set(3, static_cast<int32_t>(rows))
      .set(4, accumulate ? 1 : 0)
      .set(5, static_cast<int32_t>(step));
}

}  // namespace

uint64_t dmmv_int8mat_split_bytes(const ProjectionProblem& p, const DmmvIntdotTuning& requested,
                                  const BindingLimits& limits) {
  if (requested.int8_matrix.from_cols == 0 || !has_integer_dot_path(p.format, p.cols)) return 0;
  const uint32_t slice_rows = rows_per_slice(row_bytes(p.format, p.cols), p.rows, limits, device_rows_multiple(p.format));
  uint64_t bytes = 0;
  for (uint32_t first = 0; first < p.ncols;) {
    const uint32_t count = piece_cols(p.ncols - first);
    if (const std::optional<DmmvInt8MatTuning> t = int8mat_piece(p, requested.int8_matrix, count)) {
      for (uint32_t row0 = 0; row0 < p.rows; row0 += slice_rows) {
        const uint32_t rows = std::min(slice_rows, p.rows - row0);
        if (rows >= t->rows) bytes += aligned_up(split_region_bytes(*t, count, rows), limits.offset_alignment);
      }
    }
    first += count;
  }
  return bytes;
}

std::vector<Op> dmmv_intdot_ops(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                                const DmmvIntdotTuning& requested, const TensorView& split_sums) {
  require(dmmv_intdot_kernel_name(p.format) != nullptr, std::string("no integer-dot kernel for ") +
                                                         std::string(format_name(p.format)) +
                                                         " weights (Q8_0, Q4_K and Q6_K have one)");
  // The kernel sizes its reduction for subgroups of at least 8.
  const auto valid = [&](const DmmvIntdotTuning& t) {
    const bool chunk_ok = t.chunk == 0 || (p.format == WeightFormat::Q4_K && (t.chunk == 16 || t.chunk == 32 || t.chunk == 64)) ||
                          (p.format == WeightFormat::Q8_0 && (t.chunk == 16 || t.chunk == 32));
    return (t.threads == 0 || (t.threads >= 8 && t.threads % 8 == 0 && t.threads <= 1024)) && t.rows <= 8 &&
           t.unroll <= 4 && chunk_ok;
  };
  require(valid(requested),
          "tuning needs threads a multiple of 8 up to 1024, rows 1..8, unroll 1..4, and chunk 0 (or 16, 32 or 64 "
          "for Q4_K, 16 or 32 for Q8_0)");
  const DmmvCoopmatTuning m = coopmat_shape(p.format, requested.matrix);  // the matrix pieces' shape
  if (requested.matrix.from_cols != 0) {
    require(dmmv_coopmat_kernel_name(p.format) != nullptr,
            std::string("no cooperative-matrix kernel for ") + std::string(format_name(p.format)) +
                " weights (Q8_0 and Q4_K have one)");
    require(coopmat_shape_valid(m) && p.cols % m.step == 0,
            "the matrix kernel's tuning needs 1..16 subgroups, 16 or 32 rows and a step of 64, 128 or 256 weights "
            "that divides cols");
  }
  if (requested.int8_matrix.from_cols != 0) {
    const DmmvInt8MatTuning m8 = int8mat_shape(p.format, requested.int8_matrix, 8, p.rows, p.cols);
    require(dmmv_int8mat_kernel_name(p.format) != nullptr,
            std::string("no int8 matrix kernel for ") + std::string(format_name(p.format)) +
                " weights (Q8_0 and Q4_K have one)");
    require(int8mat_shape_valid(m8),
            "the int8 matrix kernel's tuning needs 1..16 subgroups, 16, 32 or 64 rows, steps of 2, 4 or 8 blocks and "
            "1, 2, 4 or 8 splits");
  }
  require(p.rows > 0 && p.ncols > 0 && has_integer_dot_path(p.format, p.cols),
          std::string(format_name(p.format)) + " needs cols a positive multiple of " +
              std::to_string(integer_dot_cols_multiple(p.format)));
  require(p.y_stride >= p.rows, "y_stride must be >= rows");
  require(x.cols == p.cols && x.ncols >= p.ncols, "the quantized x holds other cols or fewer columns");
  const uint64_t rb = row_bytes(p.format, p.cols);
  const uint32_t slice_rows = rows_per_slice(rb, p.rows, limits, device_rows_multiple(p.format));
  uint64_t split_offset = 0;  // the next op's region of split_sums
  std::vector<Op> ops;
  for (uint32_t first = 0; first < p.ncols;) {
    const uint32_t count = piece_cols(p.ncols - first);
    // Per row slice: only slices of at least m8.rows rows (below).
    const std::optional<DmmvInt8MatTuning> piece_shape = int8mat_piece(p, requested.int8_matrix, count);
    const bool int8_matrix = piece_shape.has_value();
    const DmmvInt8MatTuning m8 = piece_shape.value_or(DmmvInt8MatTuning{});
    const bool matrix = !int8_matrix && requested.matrix.from_cols != 0 && count >= requested.matrix.from_cols;
    const DmmvIntdotTuning defaults = default_dmmv_intdot_tuning(p.format, count, p.cols);
    const DmmvIntdotTuning t{requested.threads ? requested.threads : defaults.threads,
                             requested.rows ? requested.rows : defaults.rows,
                             requested.unroll ? requested.unroll : defaults.unroll,
                             requested.chunk ? requested.chunk : defaults.chunk};
    std::string name = matrix ? dmmv_coopmat_kernel_name(p.format) : dmmv_intdot_kernel_name(p.format, t.chunk);
    if (x.rms) {
      require(x.rms->eps > 0, "a deferred norm's epsilon must be positive");
      require(!matrix && p.ncols == 1 && name == dmmv_intdot_kernel_name(p.format),
              "an input whose RMS division is deferred (x.rms) takes one column through the integer dot in the "
              "format's first chunk (Q4_K 64, Q8_0 16)");
      name += "_rms";
    }
    const Kernel* k = find_kernel(name);
    require(k != nullptr, std::string("kernel ") + name +
                              " was not compiled in (integer-dot kernels need glslang >= 14 with "
                              "GL_EXT_integer_dot_product, the matrix ones also GL_KHR_cooperative_matrix; see the "
                              "configure output)");
    const AlignedWindow xq = aligned_window(x.quants, uint64_t(first) * p.cols, uint64_t(first + count) * p.cols, limits);
    const AlignedWindow xs = aligned_window(x.scales, uint64_t(first) * p.cols / 4,
                                            uint64_t(first + count) * p.cols / 4, limits);  // 8 bytes per 32
    const AlignedWindow y = aligned_window(p.y, uint64_t(first) * p.y_stride * 4,
                                           (uint64_t(first + count - 1) * p.y_stride + p.rows) * 4, limits);
    require(xq.first_float % 4 == 0 && xs.first_float % 2 == 0,
            "the quants must start on 16 bytes and the scales on 8");
    for (uint32_t row0 = 0; row0 < p.rows; row0 += slice_rows) {
      const uint32_t rows = std::min(slice_rows, p.rows - row0);
      Op op;
      op.kernel = k;
      const bool int8_tiles = int8_matrix && rows >= m8.rows;
      const bool split = int8_tiles && m8.splits > 1;
      if (int8_tiles) {
        const std::string int8_name = std::string(dmmv_int8mat_kernel_name(p.format)) + (split ? "_split" : "");
        op.kernel = find_kernel(int8_name);
        require(op.kernel != nullptr, "kernel " + int8_name +
                                          " was not compiled in (it needs glslang with GL_KHR_cooperative_matrix)");
        set_matrix_spec(op, count, m8.subgroups, m8.rows, p.accumulate, m8.step);
      } else if (matrix) {
        set_matrix_spec(op, count, m.subgroups, m.rows, p.accumulate, m.step);
      } else {
        op.spec.set(0, static_cast<int32_t>(count))
            .set(2, static_cast<int32_t>(t.threads))
            .set(3, static_cast<int32_t>(t.rows))
            .set(4, p.accumulate ? 1 : 0)
            .set(5, static_cast<int32_t>(t.unroll));
      }
      op.bindings = {p.weights.slice(row0 * rb, rows * rb).read(), xq.view.read(), xs.view.read(),
                     p.accumulate ? y.view.read_write() : y.view.write()};
      if (x.rms) bind_deferred_rms(op, *x.rms, p.cols);
      if (split) {
        const uint64_t region = split_region_bytes(m8, count, rows);
        if (split_sums.buffer == nullptr || split_sums.offset % limits.offset_alignment != 0 ||
            split_offset + region > split_sums.bytes) {
          throw UsageError("dmmv_intdot: the int8 matrix kernel's K split needs split_sums: a zeroed view of " +
                           std::to_string(dmmv_int8mat_split_bytes(p, requested, limits)) +
                           " bytes (dmmv_int8mat_split_bytes) starting on " +
                           std::to_string(limits.offset_alignment) + "; give it one, or splits 1");
        }
        op.bindings.push_back(split_sums.slice(split_offset, region).read_write());
        split_offset += aligned_up(region, limits.offset_alignment);
      }
      op.push = PushConstants::of(
          DmmvIntdotPush{rows, p.cols, p.y_stride, row0, y.first_float, xq.first_float / 4, xs.first_float / 2});
      const uint32_t groups = ceil_div(rows, int8_tiles ? m8.rows : matrix ? m.rows : t.rows);
      op.groups = folded_grid(groups);
      if (split) {
        op.groups[2] = m8.splits;
        op.spec.set(6, static_cast<int32_t>(m8.splits));
      }
      op.label = int8_tiles ? "dmmv_int8mat" : matrix ? "dmmv_coopmat" : "dmmv_intdot";
      ops.push_back(op);
    }
    first += count;
  }
  return ops;
}

namespace {

// The projection `p` from `x` (no deferred RMS) as one op of the block-owning kernel
// dmmv_intdot_<fmt><suffix>: teams of 32 invocations of `team_rows` rows each, `block_rows` rows
// a workgroup, in the format's first chunk. `what` names it in errors.
Op block_owning_op(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits, uint32_t team_rows,
                   uint32_t block_rows, const std::string& suffix, const std::string& what) {
  DmmvIntdotTuning t;
  t.threads = 32 * (block_rows / team_rows);
  t.rows = team_rows;
  t.unroll = 2;
  std::vector<Op> ops = dmmv_intdot_ops(p, x, limits, t);
  require(ops.size() == 1, what + " must be one dispatch (its weights in one binding)");
  Op op = std::move(ops.front());
  const std::string name = op.kernel->name + suffix;
  require(op.kernel->name == dmmv_intdot_kernel_name(p.format) && find_kernel(name) != nullptr,
          "kernel " + name + " was not compiled in");
  op.kernel = find_kernel(name);
  return op;
}

}  // namespace

Op dmmv_intdot_norm_op(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                       const NormEpilogue& norm) {
  constexpr uint32_t block = kQuantizedXBlock;
  require(p.ncols == 1 && p.accumulate, "the norm-writing projection takes one column and adds into y (a residual)");
  require(p.rows % block == 0, "the norm-writing projection needs rows a multiple of 32 (" +
                                   std::to_string(p.rows) + "): a workgroup writes whole blocks of the norm");
  require(!x.rms, "the norm-writing projection's own input cannot be a deferred norm");
  require(norm.out.rms.has_value() && norm.out.cols == p.rows && norm.out.ncols >= 1,
          "the norm's int8 output must hold one column of rows and name its block squares (out.rms)");
  require(norm.weight.bytes >= uint64_t(p.rows) * 4, "the norm's weights must hold rows floats");
  Op op = block_owning_op(p, x, limits, kNormEpilogueTeamRows, block, "_norm", "the norm-writing projection");
  op.bindings.push_back(norm.weight.slice(0, uint64_t(p.rows) * 4).read());
  op.bindings.push_back(norm.out.quants.slice(0, p.rows).write());
  op.bindings.push_back(norm.out.scales.slice(0, uint64_t(p.rows / block) * 8).write());
  op.bindings.push_back(norm.out.rms->block_squares.slice(0, uint64_t(p.rows / block) * 4).write());
  op.groups = folded_grid(p.rows / block);
  specialize_norm_epilogue(op, norm);
  op.label = "dmmv_intdot_norm";
  return op;
}

Op dmmv_intdot_glu_op(const ProjectionProblem& p, const QuantizedX& x, const BindingLimits& limits,
                      const GluEpilogue& glu) {
  constexpr uint32_t block = kQuantizedXBlock;
  const uint32_t n = p.rows / 2;
  require(p.ncols == 1 && !p.accumulate, "the GLU-applying projection takes one column and writes no y");
  require(p.rows % (2 * block) == 0, "the GLU-applying projection needs gate and up rows of a multiple of 32 each (" +
                                         std::to_string(p.rows) + " rows in all)");
  require(glu.out.cols == n && glu.out.ncols >= 1 && !glu.out.rms,
          "the GLU's int8 output must hold one column of rows / 2 (and no deferred RMS)");
  QuantizedX plain = x;  // the op's RMS binding is its own (below)
  plain.rms.reset();
  // A workgroup's teams hold 32 gate rows and the 32 up rows that pair with them.
  Op op = block_owning_op(p, plain, limits, kGluEpilogueTeamRows, 2 * block, "_glu", "the GLU-applying projection");
  if (x.rms) {
    bind_deferred_rms(op, *x.rms, p.cols);
  } else {
    op.bindings.push_back(op.bindings[2]);  // binding 4 unread (RMS_EPS 0): the input's scales stand in
    op.spec.set(6, std::bit_cast<int32_t>(0.0f));
  }
  op.bindings.push_back(glu.out.quants.slice(0, n).write());
  op.bindings.push_back(glu.out.scales.slice(0, uint64_t(n / block) * 8).write());
  op.spec.set(7, static_cast<int32_t>(glu.activation));
  op.groups = folded_grid(n / block);
  op.label = "dmmv_intdot_glu";
  return op;
}

}  // namespace pb
