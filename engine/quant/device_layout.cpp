#include "engine/quant/device_layout.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/quant/blocks.h"
#include "harness/errors.h"

namespace pb {
namespace {

static_assert(kQ6_KBodyBytes == offsetof(BlockQ6_K, d), "a Q6_K body is the block up to its d");

constexpr uint64_t kQ8_0QuantBytes = 32;
constexpr uint64_t kQ8_0ScaleBytes = 2;
constexpr uint64_t kQ6_KGroupRows = 8;

// Rows in `from`, or std::invalid_argument: a caller bug, not bad input.
uint64_t whole_rows(WeightFormat format, uint64_t cols, size_t from_bytes, size_t to_bytes) {
  const uint64_t row = row_bytes(format, cols);
  if (from_bytes != to_bytes || row == 0 || from_bytes % row != 0) {
    throw std::invalid_argument("device layout: " + std::to_string(from_bytes) + " -> " + std::to_string(to_bytes) +
                                " bytes are not whole " + std::string(format_name(format)) + " rows of " +
                                std::to_string(cols));
  }
  return from_bytes / row;
}

// One Q8_0 row of `blocks` blocks: GGUF block b is its scale, then its quants.
void q8_0_row_to_device(uint64_t blocks, const uint8_t* gguf, uint8_t* device) {
  for (uint64_t b = 0; b < blocks; ++b) {
    std::memcpy(device + q8_0_device_quants_at(b), gguf + b * 34 + kQ8_0ScaleBytes, kQ8_0QuantBytes);
    std::memcpy(device + q8_0_device_scale_at(blocks, b), gguf + b * 34, kQ8_0ScaleBytes);
  }
}

void q8_0_row_to_gguf(uint64_t blocks, const uint8_t* device, uint8_t* gguf) {
  for (uint64_t b = 0; b < blocks; ++b) {
    std::memcpy(gguf + b * 34 + kQ8_0ScaleBytes, device + q8_0_device_quants_at(b), kQ8_0QuantBytes);
    std::memcpy(gguf + b * 34, device + q8_0_device_scale_at(blocks, b), kQ8_0ScaleBytes);
  }
}

// One group of `rows` Q6_K rows (8, fewer in a tensor's last) of `blocks` blocks: GGUF block
// (r, b) is its body, then its d.
void q6_k_group_to_device(uint64_t blocks, uint64_t rows, const uint8_t* gguf, uint8_t* device) {
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint8_t* block = gguf + (r * blocks + b) * 210;
      std::memcpy(device + q6_k_device_body_at(blocks, r, b), block, kQ6_KBodyBytes);
      std::memcpy(device + q6_k_device_d_at(blocks, rows, r, b), block + kQ6_KBodyBytes, 2);
    }
  }
}

void q6_k_group_to_gguf(uint64_t blocks, uint64_t rows, const uint8_t* device, uint8_t* gguf) {
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t b = 0; b < blocks; ++b) {
      uint8_t* block = gguf + (r * blocks + b) * 210;
      std::memcpy(block, device + q6_k_device_body_at(blocks, r, b), kQ6_KBodyBytes);
      std::memcpy(block + kQ6_KBodyBytes, device + q6_k_device_d_at(blocks, rows, r, b), 2);
    }
  }
}

void convert(WeightFormat format, uint64_t cols, std::span<const uint8_t> from, std::span<uint8_t> to,
             bool to_device) {
  const uint64_t rows = whole_rows(format, cols, from.size(), to.size());
  if (!has_device_layout(format)) {
    if (!from.empty()) std::memcpy(to.data(), from.data(), from.size());
    return;
  }
  const uint64_t row = row_bytes(format, cols);
  const uint64_t blocks = cols / block_weights(format);
  if (format == WeightFormat::Q8_0) {
    const auto fn = to_device ? q8_0_row_to_device : q8_0_row_to_gguf;
    for (uint64_t r = 0; r < rows; ++r) fn(blocks, from.data() + r * row, to.data() + r * row);
    return;
  }
  const auto fn = to_device ? q6_k_group_to_device : q6_k_group_to_gguf;
  for (uint64_t r = 0; r < rows; r += kQ6_KGroupRows) {
    fn(blocks, std::min(kQ6_KGroupRows, rows - r), from.data() + r * row, to.data() + r * row);
  }
}

}  // namespace

bool has_device_layout(WeightFormat format) {
  return format == WeightFormat::Q8_0 || format == WeightFormat::Q6_K;
}

uint32_t device_cols_multiple(WeightFormat format) {
  return format == WeightFormat::Q8_0 ? 256 : block_weights(format);
}

uint32_t device_rows_multiple(WeightFormat format) {
  return format == WeightFormat::Q6_K ? kQ6_KGroupRows : 1;
}

void require_device_cols(WeightFormat format, uint64_t cols, std::string_view what) {
  const uint32_t multiple = device_cols_multiple(format);
  if (cols == 0 || cols % multiple != 0) {
    throw UsageError(std::string(what) + ": " + std::string(format_name(format)) + " weights need rows of a " +
                     "positive multiple of " + std::to_string(multiple) + " weights on the device" +
                     (format == WeightFormat::Q8_0 ? " (each row's quants are read as aligned 16-byte vectors)" : "") +
                     "; got " + std::to_string(cols) + " columns");
  }
}

void gguf_to_device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to) {
  convert(format, cols, from, to, true);
}

void device_to_gguf_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> from,
                         std::span<uint8_t> to) {
  convert(format, cols, from, to, false);
}

std::vector<uint8_t> device_rows(WeightFormat format, uint64_t cols, std::span<const uint8_t> gguf) {
  std::vector<uint8_t> out(gguf.size());
  gguf_to_device_rows(format, cols, gguf, out);
  return out;
}

}  // namespace pb
