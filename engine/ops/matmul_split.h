// The K split of the cooperative-matrix matmul on few tiles (kernels/coopmat/
// matmul_coopmat_<format>_split.comp, MATMUL_SPLIT_K in matmul_coopmat_body.glsl). With few
// tokens a chunk (prefill's default of 32), a matrix has one tile per 128 or 256 rows, and each
// workgroup's chain of K steps is the dispatch's time: there the workgroups of a tile split its
// steps and store their sums to a scratch region, and matmul_split_reduce.comp, the dispatch
// after, adds them in split order into y.
#pragma once

#include <cstdint>

#include "engine/ops/binding_limits.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/matmul_tiling.h"
#include "engine/ops/tensor_view.h"
#include "engine/quant/weight_format.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

struct MatmulPush;

inline constexpr uint32_t kMatmulSplitBelowTiles = 64;  // ops of fewer tiles split their K
inline constexpr uint32_t kMatmulSplitGrid = 128;       // the workgroups (tiles x splits) aimed for
inline constexpr uint32_t kMatmulMaxSplits = 8;         // the most: the reduction reads them all
inline constexpr uint32_t kMatmulMinSplitSteps = 4;     // K steps per split, at least

// The splits for an op of `tiles` tiles and `steps` K steps: the largest power of two up to
// kMatmulMaxSplits that keeps tiles x splits within kMatmulSplitGrid, every split at least
// kMatmulMinSplitSteps steps and none empty (the kernel gives split z steps z * ceil(steps /
// splits) onwards); 1 where the op has kMatmulSplitBelowTiles tiles or more.
uint32_t matmul_splits(uint32_t tiles, uint32_t steps);

// Bytes of one op's scratch region: a slot of bm x bn floats per tile and split.
uint64_t matmul_split_region_bytes(const CoopmatTiling& t, uint32_t tiles, uint32_t splits);

// The scratch a model's activations hold for every split op: the largest region matmul_splits
// allows under the default tilings choose_matmul takes on `info` (the narrow tiles of short
// chunks need half as much); 0 where the device takes the scalar matmul or the split kernels
// were not compiled in. The ops share it one at a time (the hazard ledger orders them), and it
// needs no zeroing: the reduction reads only slots just written.
uint64_t matmul_split_scratch_bytes(const DeviceInfo& info);

// The second dispatch of a split op (kernels/matmul_split_reduce.comp): y (+)= the sum of the
// `splits` slots per element in `sums`, the split kernel's region under tiling `t`, for the
// rows and tokens of `push` (the split op's own push constants, y_offset and row_base
// included).
Op matmul_split_reduce_op(const CoopmatTiling& t, uint32_t splits, const TensorView& sums, const TensorView& y,
                          const MatmulPush& push, bool accumulate);

// The slots of one split op as its reduction reads them: the tiling and splits it ran under,
// its scratch region, and its rows and tokens. matmul_ops reports them where a problem ran as
// one split op and its reduction, so that reduction can be built again with an epilogue.
struct SplitSlots {
  CoopmatTiling tiling;
  uint32_t splits = 0;
  TensorView sums;
  uint32_t rows = 0;
  uint32_t ncols = 0;
};

// The reduction of a split stacked gate and up projection (slots.rows = 2 glu.n: gate's rows,
// then up's) that applies the gated unit too (kernels/matmul_split_reduce_glu.comp): glu.out
// for glu.ncols = slots.ncols tokens, the bits of the plain reduction then glu_op; glu's gate
// and up views are not read (the split op's output is never written).
Op matmul_split_reduce_glu_op(const SplitSlots& slots, const GluProblem& glu, const BindingLimits& limits);

// The reduction of a split projection gated by one sigmoid per token and added into `y`
// (kernels/matmul_split_reduce_gated.comp): y[t][r] += sigmoid(gate[t * gate_stride]) * sum for
// the slots' rows and tokens, the bits of the plain reduction, sigmoid_mul_op (broadcast) and
// add_in_place_op.
Op matmul_split_reduce_gated_op(const SplitSlots& slots, const TensorView& gate, uint32_t gate_stride,
                                const TensorView& y, uint32_t y_stride, const BindingLimits& limits);

// "matmul_coopmat_q4_k_split", ...
const char* matmul_split_kernel_name(WeightFormat format);

}  // namespace pb
