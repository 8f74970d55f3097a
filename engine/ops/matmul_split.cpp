#include "engine/ops/matmul_split.h"

#include <algorithm>
#include <string>

#include "engine/ops/matmul_op.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {

uint32_t matmul_splits(uint32_t tiles, uint32_t steps) {
  if (tiles == 0 || tiles >= kMatmulSplitBelowTiles) return 1;
  for (uint32_t s = kMatmulMaxSplits; s > 1; s /= 2) {
    const uint32_t share = (steps + s - 1) / s;
    if (tiles * s <= kMatmulSplitGrid && steps >= s * kMatmulMinSplitSteps && (s - 1) * share < steps) return s;
  }
  return 1;
}

uint64_t matmul_split_region_bytes(const CoopmatTiling& t, uint32_t tiles, uint32_t splits) {
  return uint64_t(tiles) * splits * t.bm * t.bn * 4;
}

uint64_t matmul_split_scratch_bytes(const DeviceInfo& info) {
  uint64_t bytes = 0;
  for (const WeightFormat f : {WeightFormat::F32, WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                               WeightFormat::Q6_K}) {
    const MatmulChoice c = choose_matmul(info, f, true);
    if (!c.coopmat || find_kernel(matmul_split_kernel_name(f)) == nullptr) continue;
    // tiles x splits <= kMatmulSplitGrid.
    bytes = std::max(bytes, uint64_t(kMatmulSplitGrid) * c.coop.bm * c.coop.bn * 4);
  }
  return bytes;
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("matmul split reduce: " + what);
}

// The specialization constants the reductions share (include/split_slots.glsl).
SpecConstants split_slot_spec(const SplitSlots& slots) {
  SpecConstants spec;
  spec.set(0, static_cast<int32_t>(slots.splits))
      .set(1, static_cast<int32_t>(slots.tiling.bm))
      .set(2, static_cast<int32_t>(slots.tiling.bn));
  return spec;
}

// Columns [0, ncols) of `n` floats at `stride` from `view`'s start, bound from an aligned offset.
AlignedWindow columns_window(const TensorView& view, uint32_t n, uint32_t ncols, uint32_t stride,
                             const BindingLimits& limits) {
  return aligned_window(view, 0, (uint64_t(ncols - 1) * stride + n) * 4, limits);
}

}  // namespace

Op matmul_split_reduce_op(const CoopmatTiling& t, uint32_t splits, const TensorView& sums, const TensorView& y,
                          const MatmulPush& push, bool accumulate) {
  Op op;
  op.kernel = &kernel("matmul_split_reduce");
  op.spec = split_slot_spec(SplitSlots{t, splits, sums, push.rows, push.ncols});
  op.spec.set(3, accumulate ? 1 : 0);
  op.bindings = {sums.read(), accumulate ? y.read_write() : y.write()};
  op.push = PushConstants::of(push);
  op.groups = {(push.rows + 63) / 64, push.ncols, 1};  // 64 rows a workgroup, a token per row of the grid
  op.label = "matmul split reduce";
  return op;
}

Op matmul_split_reduce_glu_op(const SplitSlots& slots, const GluProblem& glu, const BindingLimits& limits) {
  require(slots.rows == 2 * glu.n && slots.ncols == glu.ncols && glu.n > 0 && glu.out_stride >= glu.n,
          "the GLU reduction needs a split op of 2 n rows (gate, then up) over the unit's tokens");
  const AlignedWindow out = columns_window(glu.out, glu.n, glu.ncols, glu.out_stride, limits);
  const struct {
    uint32_t n, ncols, out_stride, out_offset;
  } push{glu.n, glu.ncols, glu.out_stride, out.first_float};
  Op op;
  op.kernel = &kernel("matmul_split_reduce_glu");
  op.spec = split_slot_spec(slots);
  op.spec.set(3, static_cast<int32_t>(glu.activation));
  op.bindings = {slots.sums.read(), out.view.write()};
  op.push = PushConstants::of(push);
  op.groups = {(glu.n + 63) / 64, glu.ncols, 1};
  op.label = "matmul split reduce glu";
  return op;
}

Op matmul_split_reduce_gated_op(const SplitSlots& slots, const TensorView& gate, uint32_t gate_stride,
                                const TensorView& y, uint32_t y_stride, const BindingLimits& limits) {
  require(slots.rows > 0 && slots.ncols > 0 && y_stride >= slots.rows && gate_stride > 0,
          "the gated reduction needs rows, tokens, a y stride of at least the rows and a gate stride");
  const AlignedWindow g = columns_window(gate, 1, slots.ncols, gate_stride, limits);
  const AlignedWindow out = columns_window(y, slots.rows, slots.ncols, y_stride, limits);
  const struct {
    uint32_t rows, ncols, y_stride, y_offset, gate_stride, gate_offset;
  } push{slots.rows, slots.ncols, y_stride, out.first_float, gate_stride, g.first_float};
  Op op;
  op.kernel = &kernel("matmul_split_reduce_gated");
  op.spec = split_slot_spec(slots);
  op.bindings = {slots.sums.read(), g.view.read(), out.view.read_write()};
  op.push = PushConstants::of(push);
  op.groups = {(slots.rows + 63) / 64, slots.ncols, 1};
  op.label = "matmul split reduce gated";
  return op;
}

const char* matmul_split_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::F32: return "matmul_coopmat_f32_split";
    case WeightFormat::F16: return "matmul_coopmat_f16_split";
    case WeightFormat::Q8_0: return "matmul_coopmat_q8_0_split";
    case WeightFormat::Q4_K: return "matmul_coopmat_q4_k_split";
    case WeightFormat::Q6_K: return "matmul_coopmat_q6_k_split";
  }
  return "?";
}

}  // namespace pb
