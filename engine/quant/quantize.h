// CPU quantization and dequantization of one row in any weight format. Dequantization is
// exact to the format and performs ggml's float operations in ggml's order, so the CPU
// reference forward sees the same weights llama.cpp would; quantization is a good-quality
// search in the spirit of ggml's reference quantizers, not a bit-exact copy of them.
#pragma once

#include <cstdint>
#include <span>

#include "engine/quant/weight_format.h"

namespace pb {

// Quantizes `values` (a multiple of the block size) into `out`, which must be exactly
// row_bytes(format, values.size()) long. Throws UsageError on a size mismatch.
void quantize_row(WeightFormat format, std::span<const float> values, std::span<uint8_t> out);

// Dequantizes `in` into `out`; `in` must be exactly row_bytes(format, out.size()) long.
// Throws UsageError on a size mismatch.
void dequantize_row(WeightFormat format, std::span<const uint8_t> in, std::span<float> out);

}  // namespace pb
