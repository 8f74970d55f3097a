// Op builder for zeroing a buffer range (kernels/fill_zero.comp).
#pragma once

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct FillZeroPush {
  uint32_t count;  // 32-bit words to zero
};

// Zeroes `view` (its size a multiple of 4 bytes).
Op fill_zero_op(const TensorView& view);

}  // namespace pb
