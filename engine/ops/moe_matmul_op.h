// Op builder for the experts' tiled matmul (kernels/moe_matmul_<fmt>.comp and
// kernels/coopmat/moe_matmul_coopmat_<fmt>.comp): the problem moe_dmmv_ops solves, for a
// prefill chunk. The expert DMMV reads each selected expert's weights once per pass of at most
// 8 assignments and re-reads the activations for every 1 to 16 rows; the matmul decodes a tile
// of an expert's weights once for all of its assignments (up to the tile's tokens) and shares
// the activations over the tile's rows, on the matrix units where the device has them. The
// tiles are the dense matmul's (matmul_tile_io.glsl, MOE_MATMUL): workgroup (token tile, row
// tile, work item), the item's assignments gathered from x and scattered to y by index.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/matmul_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// The MOE_MATMUL push-constant block of kernels/include/matmul_tile_io.glsl is the expert
// DMMV's, field for field: the ops push a MoeDmmvPush.

// The tiles for experts' chunks: the dense matmul's kernel choice (choose_matmul) with the
// token tile cut to 32, the smallest the kernels take, since an expert serves C * K / E of a
// chunk's assignments on average (4 of a 64-token chunk at 8 of 128); on the matrix units 128
// rows in 32-row subgroup blocks, 64-deep steps, one stage where they fit. Chosen from the
// moe_matmul_coopmat_tuning benchmarks on an H200 (docs/GPU_FIGURES.md).
MatmulChoice choose_moe_matmul(const DeviceInfo& info, WeightFormat format, bool allow_coopmat = true);

// One op per expert slice (as moe_dmmv_ops splits the stacked weights by the binding range),
// each dispatching ceil(C / bn) x ceil(rows / bm) x min(E, C*K) workgroups. Throws UsageError
// as moe_dmmv_ops does, for a choice check_matmul_choice refuses, or a kernel not compiled in.
std::vector<Op> moe_matmul_ops(const MoeDmmvProblem& problem, const MoeRouting& routing, const BindingLimits& limits,
                               const MatmulChoice& choice);

// "moe_matmul_q4_k" or "moe_matmul_coopmat_q4_k", ...; null for a format without one (F32).
const char* moe_matmul_kernel_name(WeightFormat format, bool coopmat);

}  // namespace pb
