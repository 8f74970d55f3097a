#include "engine/ops/matmul_split.h"

#include <algorithm>

#include "engine/ops/matmul_op.h"
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

Op matmul_split_reduce_op(const CoopmatTiling& t, uint32_t splits, const TensorView& sums, const TensorView& y,
                          const MatmulPush& push, bool accumulate) {
  Op op;
  op.kernel = find_kernel("matmul_split_reduce");
  op.spec.set(0, static_cast<int32_t>(splits))
      .set(1, static_cast<int32_t>(t.bm))
      .set(2, static_cast<int32_t>(t.bn))
      .set(3, accumulate ? 1 : 0);
  op.bindings = {sums.read(), accumulate ? y.read_write() : y.write()};
  op.push = PushConstants::of(push);
  op.groups = {(push.rows + 63) / 64, push.ncols, 1};  // 64 rows a workgroup, a token per row of the grid
  op.label = "matmul split reduce";
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
