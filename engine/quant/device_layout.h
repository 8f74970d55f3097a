// How weights sit in device memory, where that differs from GGUF's bytes.
//
// GGUF's Q8_0 blocks are 34 bytes (an f16 scale, then 32 int8 quants) and its Q6_K blocks 210
// (128 bytes ql, 64 qh, 16 int8 scales, then an f16 d), so their quants are only 2-byte aligned
// and a kernel must read them as 16- or 32-bit words and join halves. On the device both keep
// their bytes and their size but group them by kind, so that every run of quants a kernel
// reads starts on 16 bytes:
//   Q8_0: each row holds its blocks' quants first, 32 bytes a block in block order, then
//         their f16 scales, 2 bytes a block. Rows of a multiple of 256 weights are a multiple
//         of 16 bytes.
//   Q6_K: rows go in groups of 8 (1680 bytes per block of a row, a multiple of 16). A group
//         holds the 208-byte bodies (ql, qh, scales, in GGUF order) of its rows' blocks first,
//         row by row, then their f16 d values in the same order. A tensor's last group may
//         hold fewer rows.
// On an H200 that took the int8 Q8_0 DMMV from 18.4 to 17.0 us on ffn_up 14336x4096
// (docs/GPU_FIGURES.md). F32, F16 and Q4_K (144-byte blocks) are stored as GGUF stores them.
//
// The CPU side (reference, export, GGUF files) always holds GGUF's bytes; these functions are
// the one place that converts, on the way to the device and back. Kernels mirror the offsets
// in kernels/include/q8_0_device_layout.glsl and q6_k_device_layout.glsl.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/quant/weight_format.h"

namespace pb {

// True when `format`'s device bytes are ordered differently from its GGUF bytes (Q8_0, Q6_K).
bool has_device_layout(WeightFormat format);

// The row width the device layout needs a multiple of (256 for Q8_0, the block size otherwise),
// and the rows it orders as one unit (8 for Q6_K, 1 otherwise): row ranges that kernels bind on
// their own, and tensors stacked in one binding, start on a multiple of those rows.
uint32_t device_cols_multiple(WeightFormat format);
uint32_t device_rows_multiple(WeightFormat format);

// Throws UsageError naming `what` when rows of `cols` weights do not fit the device layout.
void require_device_cols(WeightFormat format, uint64_t cols, std::string_view what);

// Whole rows of `cols` weights from the start of a tensor or of a group of 8 rows (Q6_K), to
// its end or to the end of a group, GGUF order to device order and back (Q6_K: a last group of
// fewer than 8 rows is a tensor's last). `from` and `to` are the same size and do not overlap.
// Formats without a device layout are copied. Throws std::invalid_argument for a partial row.
void gguf_to_device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to);
void device_to_gguf_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to);
std::vector<uint8_t> device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> gguf);

// Byte offsets of a block's parts in the device layout. Q8_0: from the row's start, block b of
// a row of `blocks` blocks.
inline uint64_t q8_0_device_quants_at(uint64_t block) { return block * 32; }
inline uint64_t q8_0_device_scale_at(uint64_t blocks, uint64_t block) { return blocks * 32 + block * 2; }
// Q6_K: from the start of a group of `group_rows` rows (8, fewer in a tensor's last), block b
// of its row r of rows of `blocks` blocks.
inline constexpr uint64_t kQ6_KBodyBytes = 208;  // ql, qh and scales: all of a block but its d
inline uint64_t q6_k_device_body_at(uint64_t blocks, uint64_t r, uint64_t block) {
  return (r * blocks + block) * kQ6_KBodyBytes;
}
inline uint64_t q6_k_device_d_at(uint64_t blocks, uint64_t group_rows, uint64_t r, uint64_t block) {
  return group_rows * blocks * kQ6_KBodyBytes + (r * blocks + block) * 2;
}

}  // namespace pb
