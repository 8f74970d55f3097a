#include "engine/ops/moe_matmul_op.h"

#include <algorithm>
#include <string>

#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {

const char* moe_matmul_kernel_name(WeightFormat format, bool coopmat) {
  switch (format) {
    case WeightFormat::F16: return coopmat ? "moe_matmul_coopmat_f16" : "moe_matmul_f16";
    case WeightFormat::Q8_0: return coopmat ? "moe_matmul_coopmat_q8_0" : "moe_matmul_q8_0";
    case WeightFormat::Q4_K: return coopmat ? "moe_matmul_coopmat_q4_k" : "moe_matmul_q4_k";
    case WeightFormat::Q6_K: return coopmat ? "moe_matmul_coopmat_q6_k" : "moe_matmul_q6_k";
    case WeightFormat::F32: return nullptr;
  }
  return nullptr;
}

MatmulChoice choose_moe_matmul(const DeviceInfo& info, WeightFormat format, bool allow_coopmat) {
  MatmulChoice choice = choose_matmul(info, format, allow_coopmat);
  const char* coopmat_kernel = moe_matmul_kernel_name(format, true);
  choice.coopmat = choice.coopmat && coopmat_kernel != nullptr && find_kernel(coopmat_kernel) != nullptr;
  // 128 rows, 32-row subgroup blocks, 64-deep steps, one stage: the fastest tiles for every
  // format, role and chunk on an H200 (the dense defaults' 64-row blocks took 10-40% longer).
  const CoopmatTiling experts{128, 32, 64, 32, 32, 1};
  if (coopmat_tiling_fits(info, experts)) choice.coop = experts;
  choice.coop.bn = 32;
  choice.coop.wn = 32;
  // The scalar tile's tokens cut to 32 with as many threads as the dense choice (tn scaled along).
  choice.scalar.tn = std::max<uint32_t>(1, choice.scalar.tn * 32 / choice.scalar.bn);
  choice.scalar.bn = 32;
  return choice;
}

std::vector<Op> moe_matmul_ops(const MoeDmmvProblem& p, const MoeRouting& routing, const BindingLimits& limits,
                               const MatmulChoice& choice) {
  const uint64_t expert_bytes = check_moe_problem(p, "moe_matmul");
  if (p.cols % 8 != 0) throw UsageError("moe_matmul: cols must be a multiple of 8 (the kernels decode 8 at a time)");
  check_matmul_choice(choice, p.format);
  const char* name = moe_matmul_kernel_name(p.format, choice.coopmat);
  if (name == nullptr || find_kernel(name) == nullptr) {
    throw UsageError(std::string("moe_matmul: no ") + (choice.coopmat ? "cooperative-matrix " : "") + "kernel for " +
                     std::string(format_name(p.format)) + " experts in this build (use moe_dmmv_ops)");
  }
  const uint32_t bm = choice.coopmat ? choice.coop.bm : choice.scalar.bm;
  const uint32_t bn = choice.coopmat ? choice.coop.bn : choice.scalar.bn;
  const uint32_t row_tiles = ceil_div(p.rows, bm);
  if (row_tiles > kMaxGroupsX) throw UsageError("moe_matmul: more than 65535 row tiles");
  Op op;
  op.kernel = &kernel(name);
  op.spec = matmul_tile_spec(choice);
  op.spec.set(6, 0).set(8, static_cast<int32_t>(p.input));
  // An expert serves at most C assignments: each token picks it once at most.
  op.groups = {ceil_div(p.ncols, bn), row_tiles, moe_item_capacity(p.shape, p.ncols)};
  op.label = "moe_matmul";
  return moe_slice_ops(p, routing, limits, expert_bytes, op);
}

}  // namespace pb
