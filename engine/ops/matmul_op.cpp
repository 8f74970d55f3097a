#include "engine/ops/matmul_op.h"

#include <algorithm>
#include <string>

#include "engine/ops/matmul_split.h"
#include "engine/ops/row_slices.h"
#include "engine/quant/device_layout.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("matmul: " + what);
}

}  // namespace

void check_matmul_choice(const MatmulChoice& c, WeightFormat format) {
  if (c.coopmat) {
    const CoopmatTiling& t = c.coop;
    require((t.wm == 32 || t.wm == 64) && (t.wn == 32 || t.wn == 64),
            "coopmat subgroup blocks are 32 or 64 rows by 32 or 64 tokens (wm, wn)");
    require(t.bm > 0 && t.bn > 0 && t.bm % t.wm == 0 && t.bn % t.wn == 0,
            "coopmat tiles need bm a multiple of wm and bn a multiple of wn");
    require(t.bk > 0 && t.bk % 16 == 0, "coopmat bk must be a multiple of 16");
    require(t.stages == 1 || t.stages == 2, "coopmat stages must be 1 or 2");
    require(c.subgroup_size >= 32 && (c.subgroup_size & (c.subgroup_size - 1)) == 0,
            "coopmat subgroup size must be a power of two >= 32");
    require(t.bk % coopmat_weight_group(format) == 0,
            std::string("coopmat bk must be a multiple of ") + std::to_string(coopmat_weight_group(format)) +
                " for " + std::string(format_name(format)) + " (the weight groups its kernel decodes)");
  } else {
    const ScalarTiling& t = c.scalar;
    require(t.tm > 0 && t.tn > 0 && t.bm % t.tm == 0 && t.bn % t.tn == 0 && t.bm > 0 && t.bn > 0,
            "scalar tiles need bm a multiple of tm and bn a multiple of tn");
    require(t.bk > 0 && t.bk % 8 == 0, "scalar bk must be a multiple of 8");
  }
}

namespace {

// Tokens per op: all of them unless the x or y window of all tokens exceeds the binding
// range. A window may start up to offset_alignment - 4 bytes before its first column.
uint32_t tokens_per_piece(const ProjectionProblem& p, const BindingLimits& limits, uint32_t bn) {
  const uint64_t slack = limits.offset_alignment;
  const uint64_t x_bytes = (uint64_t(p.ncols - 1) * p.x_stride + p.cols) * 4 + slack;
  const uint64_t y_bytes = (uint64_t(p.ncols - 1) * p.y_stride + p.rows) * 4 + slack;
  if (x_bytes <= limits.max_range && y_bytes <= limits.max_range) return p.ncols;
  const uint64_t room = limits.max_range > slack ? limits.max_range - slack : 0;
  uint64_t fit = std::min(room / (uint64_t(p.x_stride) * 4), room / (uint64_t(p.y_stride) * 4));
  require(fit > 0, "one activation column exceeds the device's maxStorageBufferRange");
  if (fit >= bn) fit -= fit % bn;  // whole column tiles per piece
  return static_cast<uint32_t>(std::min<uint64_t>(fit, p.ncols));
}

}  // namespace

SpecConstants matmul_tile_spec(const MatmulChoice& choice) {
  SpecConstants spec;
  if (choice.coopmat) {
    const CoopmatTiling& t = choice.coop;
    spec.set(0, int32_t(t.bm)).set(1, int32_t(t.bn)).set(2, int32_t(t.bk)).set(3, int32_t(t.wm)).set(4, int32_t(t.wn));
    spec.set(7, int32_t(t.stages));
  } else {
    const ScalarTiling& t = choice.scalar;
    spec.set(0, int32_t(t.bm)).set(1, int32_t(t.bn)).set(2, int32_t(t.bk)).set(3, int32_t(t.tm)).set(4, int32_t(t.tn));
  }
  return spec.set(5, int32_t(choice.threads()));
}

const char* matmul_kernel_name(WeightFormat format, bool coopmat) {
  switch (format) {
    case WeightFormat::F32: return coopmat ? "matmul_coopmat_f32" : "matmul_f32";
    case WeightFormat::F16: return coopmat ? "matmul_coopmat_f16" : "matmul_f16";
    case WeightFormat::Q8_0: return coopmat ? "matmul_coopmat_q8_0" : "matmul_q8_0";
    case WeightFormat::Q4_K: return coopmat ? "matmul_coopmat_q4_k" : "matmul_q4_k";
    case WeightFormat::Q6_K: return coopmat ? "matmul_coopmat_q6_k" : "matmul_q6_k";
  }
  return "?";
}

bool has_coopmat_f16_16x16x16(const DeviceInfo& info) {
  if (!info.caps.cooperative_matrix) return false;
  return std::any_of(info.coopmat_shapes.begin(), info.coopmat_shapes.end(), [](const CoopMatShape& s) {
    return s.m == 16 && s.n == 16 && s.k == 16 && s.a_type == "f16" && s.b_type == "f16" &&
           s.c_type == "f32" && s.result_type == "f32" && s.scope == "subgroup";
  });
}

namespace {
// Subgroups narrower than 32 would spread a 16 x 16 tile too thin to be an NVIDIA/AMD shape;
// wider than 64 is no device phasebench targets.
uint32_t coopmat_subgroup_size(const DeviceInfo& info) { return std::max<uint32_t>(info.subgroup_size, 32); }
}  // namespace

uint32_t coopmat_weight_group(WeightFormat format) {
  return format == WeightFormat::F32 || format == WeightFormat::F16 ? 8 : 32;
}

bool coopmat_tiling_fits(const DeviceInfo& info, const CoopmatTiling& t) {
  return t.shared_bytes() <= info.max_compute_shared_memory &&
         t.threads(coopmat_subgroup_size(info)) <= info.max_workgroup_invocations;
}

MatmulChoice choose_matmul(const DeviceInfo& info, WeightFormat format, bool allow_coopmat, uint32_t tokens) {
  MatmulChoice choice;
  choice.subgroup_size = coopmat_subgroup_size(info);
  const bool floats = format == WeightFormat::F16 || format == WeightFormat::F32;
  if (floats) choice.coop = kCoopmatTilingFloat;
  if (!floats && tokens > 0 && tokens <= kCoopmatNarrowTokens && coopmat_tiling_fits(info, kCoopmatTilingNarrow)) {
    choice.coop = kCoopmatTilingNarrow;
  }
  if (!coopmat_tiling_fits(info, choice.coop)) choice.coop = kCoopmatTilingSmall;
  choice.coopmat = allow_coopmat && has_coopmat_f16_16x16x16(info) && info.subgroup_size >= 32 &&
                   info.subgroup_size <= 64 && find_kernel(matmul_kernel_name(format, true)) &&
                   coopmat_tiling_fits(info, choice.coop);
  // The scalar fallback for devices below the 24 KiB / 256 threads of the default tiles
  // (Vulkan guarantees only 16 KiB and 128): 6 KiB, 128 threads.
  if (choice.scalar.shared_bytes() > info.max_compute_shared_memory ||
      choice.scalar.threads() > info.max_workgroup_invocations) {
    choice.scalar = ScalarTiling{64, 32, 16, 4, 4};
  }
  return choice;
}

std::vector<Op> matmul_ops(const ProjectionProblem& p, const BindingLimits& limits,
                           const MatmulChoice& choice, const TensorView& split_scratch,
                           std::optional<SplitSlots>* split) {
  if (split != nullptr) split->reset();
  const uint64_t rb = row_bytes(p.format, p.cols);  // throws on a misfit cols
  require_device_cols(p.format, p.cols, "matmul");
  require(p.rows > 0 && p.cols > 0 && p.ncols > 0, "rows, cols and tokens must be positive");
  require(p.cols % 8 == 0, "cols must be a multiple of 8 (the kernels decode 8 weights at a time)");
  require(p.x_stride % 4 == 0 && p.x_stride >= p.cols && p.y_stride >= p.rows,
          "x_stride must be a multiple of 4 and >= cols, y_stride >= rows");
  check_matmul_choice(choice, p.format);
  const char* name = matmul_kernel_name(p.format, choice.coopmat);
  const Kernel* k = find_kernel(name);
  require(k != nullptr, std::string("kernel ") + name +
                            " was not compiled in (cooperative-matrix kernels need glslang >= 14)");

  const uint32_t bm = choice.coopmat ? choice.coop.bm : choice.scalar.bm;
  const uint32_t bn = choice.coopmat ? choice.coop.bn : choice.scalar.bn;
  SpecConstants spec = matmul_tile_spec(choice);
  spec.set(6, p.accumulate ? 1 : 0);

  const uint32_t slice_rows = rows_per_slice(rb, p.rows, limits, device_rows_multiple(p.format));
  const uint32_t piece = tokens_per_piece(p, limits, bn);
  std::vector<Op> ops;
  for (uint32_t first = 0; first < p.ncols; first += piece) {
    const uint32_t count = std::min(piece, p.ncols - first);
    const AlignedWindow x = aligned_window(p.x, uint64_t(first) * p.x_stride * 4,
                                           (uint64_t(first + count - 1) * p.x_stride + p.cols) * 4, limits);
    const AlignedWindow y = aligned_window(p.y, uint64_t(first) * p.y_stride * 4,
                                           (uint64_t(first + count - 1) * p.y_stride + p.rows) * 4, limits);
    require(x.first_float % 4 == 0, "x must start at a multiple of 16 bytes (the kernels read vec4s)");
    for (uint32_t row0 = 0; row0 < p.rows; row0 += slice_rows) {
      const uint32_t rows = std::min(slice_rows, p.rows - row0);
      Op op;
      op.kernel = k;
      op.spec = spec;
      op.bindings = {p.weights.slice(row0 * rb, rows * rb).read(), x.view.read(),
                     p.accumulate ? y.view.read_write() : y.view.write()};
      const MatmulPush push{rows, p.cols, count, p.x_stride, p.y_stride, row0, x.first_float, y.first_float};
      op.push = PushConstants::of(push);
      op.groups = {ceil_div(count, bn), ceil_div(rows, bm), 1};  // tokens in x: see matmul_tile_io.glsl
      op.label = "matmul";
      // Few tiles: K split across workgroups (grid z), where the scratch and the kernel allow;
      // the reduction's dispatch then writes y.
      const Kernel* split_kernel = choice.coopmat ? find_kernel(matmul_split_kernel_name(p.format)) : nullptr;
      const uint32_t tiles = op.groups[0] * op.groups[1];
      const uint32_t splits = matmul_splits(tiles, ceil_div(p.cols, choice.coop.bk));
      const uint64_t region = matmul_split_region_bytes(choice.coop, tiles, splits);
      if (split_kernel == nullptr || splits < 2 || region > split_scratch.bytes) {
        ops.push_back(op);
        continue;
      }
      const TensorView sums = split_scratch.slice(0, region);
      op.kernel = split_kernel;
      op.spec.set(9, static_cast<int32_t>(splits));
      op.bindings[2] = sums.write();  // the split kernel binds its slots where y was
      op.groups[2] = splits;
      op.label = "matmul split";
      ops.push_back(op);
      ops.push_back(matmul_split_reduce_op(choice.coop, splits, sums, y.view, push, p.accumulate));
      if (split != nullptr && rows == p.rows && count == p.ncols) {
        *split = SplitSlots{choice.coop, splits, sums, rows, count};
      }
    }
  }
  return ops;
}

}  // namespace pb
