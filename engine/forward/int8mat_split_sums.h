// The scratch of the int8 matrix DMMV's K split (engine/ops/dmmv_intdot_op.h): its sums and
// arrival counters, which a model's activations hold once, zeroed, for every projection.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/tensor_plan.h"
#include "harness/device_info.h"

namespace pb {

// The bytes the largest of `tensors`' projections needs (dmmv_int8mat_split_bytes) over up to
// `max_cols` columns under the engine's choice on `info` (dmmv_intdot_choice, with cooperative
// matrices allowed: the most any run asks); 0 where none splits K, as on devices without the
// kernel. Experts' matrices take the MoE kernels, never this one, and are skipped.
uint64_t int8mat_split_sums_bytes(const std::vector<TensorSpec>& tensors, const DeviceInfo& info, uint32_t max_cols);

}  // namespace pb
