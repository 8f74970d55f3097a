// Which weights the integer-dot DMMV (kernels/intdot/) can multiply: the formats whose quants
// are small integers with per-block scales, at input widths its chunking covers. One rule for
// the GPU op builder (engine/ops/dmmv_intdot_op.cpp) and the CPU reference forward, so both
// send the same projections through int8 activations.
#pragma once

#include <cstdint>

#include "engine/quant/weight_format.h"

namespace pb {

// The input width the integer-dot kernel of `format` needs a multiple of; 0 for a format
// without one (F32, F16). Q4_K and Q6_K work in whole 256-weight blocks; Q8_0 reads its quants
// as aligned 16-byte vectors, which its device layout gives rows of a multiple of 256
// (device_layout.h).
inline uint32_t integer_dot_cols_multiple(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q8_0:
    case WeightFormat::Q4_K:
    case WeightFormat::Q6_K: return 256;
    default: return 0;
  }
}

// True when a `format` projection with `cols` inputs can run on int8 activations.
inline bool has_integer_dot_path(WeightFormat format, uint32_t cols) {
  const uint32_t multiple = integer_dot_cols_multiple(format);
  return multiple != 0 && cols > 0 && cols % multiple == 0;
}

}  // namespace pb
