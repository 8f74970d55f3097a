// CPU reference of the token-embedding lookup: rows dequantized exactly (pb::dequantize_row),
// then scaled in float as the kernel does, so GPU and reference agree bit for bit.
#pragma once

#include <cstdint>
#include <span>

#include "engine/quant/weight_format.h"

namespace pb::ref {

// x[c * x_stride + i] = dequantized row tokens[pos0 + c], element i, times scale, for
// i < hidden, c < ncols; a token id >= vocab gives NaN (as the kernel).
void embed(WeightFormat format, std::span<const uint8_t> table, uint32_t vocab, uint32_t hidden,
           std::span<const uint32_t> tokens, uint32_t pos0, uint32_t ncols, float scale,
           std::span<float> x, uint32_t x_stride);

}  // namespace pb::ref
