// Op builder for decode's experts' down projection with the accumulation and the next norm in
// its epilogue (kernels/intdot/moe_dmmv_intdot_<fmt>_acc_norm.comp; norm_placement: producer):
// one op where moe_dmmv_intdot_ops and moe_acc_norm_op took two, so a MoE layer's decode takes
// one dispatch and one barrier less. It writes what those two write, bit for bit: the experts'
// rows into down.y, x + sum_j route_w[j] out[j] into x, and the norm's int8 input with its block
// squares.
#pragma once

#include <cstdint>

#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_dmmv_intdot_op.h"

namespace pb {

// "moe_dmmv_intdot_q4_k_acc_norm", ..._q6_k_acc_norm, ..._q8_0_acc_norm; null for the others.
const char* moe_down_acc_norm_kernel_name(WeightFormat format);

// Bytes of the arrival counters the op needs for `rows` (one per block of 32 rows), on 16.
uint64_t moe_down_acc_norm_arrivals_bytes(uint32_t rows);

// Why `down` cannot take the fused op here, or empty where it can: the kernel compiled in, the
// experts' integer-dot kernel supported, down's input per assignment over one token, rows a
// multiple of 32, and the engine's shape for it (moe_down_acc_norm_tuning) of whole teams of 32
// invocations whose rows divide 32 (the kernel's last workgroup per block quantizes it).
std::string moe_down_acc_norm_refusal(const DeviceInfo& info, const MoeDmmvProblem& down);

// `down` (the experts' down projection of one token, input per assignment, its x quantized in
// `x`), then `acc` (the accumulation of its outputs: acc.out must be down.y at down.y_stride,
// acc.n = down.rows) and the norm after it, as moe_acc_norm_op writes it. `arrivals` holds
// moe_down_acc_norm_arrivals_bytes zeroed bytes, which every dispatch leaves zeroed. The
// experts must be one binding (no slices). `tuning` zeros take moe_down_acc_norm_tuning. Throws
// UsageError naming what does not hold.
Op moe_down_acc_norm_op(const MoeDmmvProblem& down, const QuantizedX& x, const MoeRouting& routing,
                        const MoeAccProblem& acc, const NormEpilogue& norm, const TensorView& arrivals,
                        const BindingLimits& limits, const DmmvIntdotTuning& tuning = {});

// The workgroup shape the engine takes for it (see the source).
DmmvIntdotTuning moe_down_acc_norm_tuning(WeightFormat format, uint32_t cols);

}  // namespace pb
