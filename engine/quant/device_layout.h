// How weights sit in device memory, where that differs from GGUF's bytes.
//
// GGUF's Q8_0 blocks are 34 bytes (an f16 scale, then 32 int8 quants), so a block's quants are
// only 2-byte aligned and a kernel must read them as 16- or 32-bit words and join halves. On
// the device each Q8_0 row keeps its size and its place but orders its bytes by kind: the
// row's quants first, 32 bytes a block in block order, then its f16 scales, 2 bytes a block.
// A row of a multiple of 256 weights is a multiple of 16 bytes, so every block's quants are
// two aligned 16-byte vectors. On an H200 that took the int8 Q8_0 DMMV from 18.4 to 17.0 us on
// ffn_up 14336x4096 (docs/GPU_FIGURES.md). The other formats are stored as GGUF stores them.
//
// The CPU side (reference, export, GGUF files) always holds GGUF's bytes; these functions are
// the one place that converts, on the way to the device and back.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/quant/weight_format.h"

namespace pb {

// True when `format`'s device rows are ordered differently from its GGUF rows (Q8_0).
bool has_device_layout(WeightFormat format);

// The row width the device layout of `format` needs a multiple of: 256 for Q8_0, the block
// size for the others.
uint32_t device_cols_multiple(WeightFormat format);

// Throws UsageError naming `what` when `cols` is not a multiple of device_cols_multiple.
void require_device_cols(WeightFormat format, uint64_t cols, std::string_view what);

// Whole rows of `cols` weights, GGUF order to device order and back. `from` and `to` are the
// same size, a multiple of row_bytes(format, cols), and do not overlap. For a format without a
// device layout the bytes are copied.
void gguf_to_device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to);
void device_to_gguf_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to);
std::vector<uint8_t> device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> gguf);

// Where a Q8_0 block's parts sit in the device layout, as byte offsets from the row's start
// (mirrored by kernels/include/q8_0_device_layout.glsl).
inline uint64_t q8_0_device_quants_at(uint64_t block) { return block * 32; }
inline uint64_t q8_0_device_scale_at(uint64_t blocks_per_row, uint64_t block) {
  return blocks_per_row * 32 + block * 2;
}

}  // namespace pb
