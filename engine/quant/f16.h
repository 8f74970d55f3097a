// Exact conversion between float and IEEE 754 binary16 bit patterns, independent of compiler
// _Float16 support: the bits are what GGUF files and the GPU kernels store.
#pragma once

#include <cstdint>

namespace pb {

// Round-to-nearest-even; overflow gives infinity; values below half the smallest subnormal
// give a signed zero; NaN stays NaN (quiet, payload truncated, never turned into infinity).
uint16_t float_to_half_bits(float value);
// Exact: every half value (subnormals included) is representable as a float.
float half_bits_to_float(uint16_t bits);

}  // namespace pb
