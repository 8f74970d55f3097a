#include "tests/support/saturated_matrix.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "engine/quant/blocks.h"
#include "engine/quant/f16.h"
#include "engine/quant/quantize.h"

namespace pb::test {

Matrix saturated_matrix(WeightFormat format, uint32_t rows, uint32_t cols) {
  std::vector<uint8_t> row(row_bytes(format, cols));
  const size_t blocks = row.size() / block_bytes(format);
  for (size_t b = 0; b < blocks; ++b) {
    uint8_t* at = row.data() + b * block_bytes(format);
    if (format == WeightFormat::Q8_0) {
      BlockQ8_0 block{float_to_half_bits(1.0f / 1024), {}};
      std::fill(std::begin(block.qs), std::end(block.qs), int8_t(127));
      std::memcpy(at, &block, sizeof block);
    } else if (format == WeightFormat::Q4_K) {
      BlockQ4_K block{float_to_half_bits(1.0f / 1024), 0, {}, {}};
      for (int j = 0; j < 8; ++j) q4_k_set_scale_min(block.scales, j, {63, 0});
      std::fill(std::begin(block.qs), std::end(block.qs), uint8_t(0xFF));
      std::memcpy(at, &block, sizeof block);
    } else if (format == WeightFormat::Q6_K) {
      BlockQ6_K block{};
      std::fill(std::begin(block.ql), std::end(block.ql), uint8_t(0xFF));
      std::fill(std::begin(block.qh), std::end(block.qh), uint8_t(0xFF));
      std::fill(std::begin(block.scales), std::end(block.scales), int8_t(127));
      block.d = float_to_half_bits(1.0f / 1024);
      std::memcpy(at, &block, sizeof block);
    } else {
      throw std::invalid_argument("saturated_matrix: " + std::string(format_name(format)) +
                                  " has no integer quants; pass Q8_0, Q4_K or Q6_K");
    }
  }
  Matrix m{std::vector<uint8_t>(row.size() * rows), std::vector<float>(size_t(rows) * cols)};
  for (uint32_t r = 0; r < rows; ++r) {
    std::copy(row.begin(), row.end(), m.bytes.begin() + r * row.size());
    dequantize_row(format, row, std::span(m.dequantized).subspan(size_t(r) * cols, cols));
  }
  return m;
}

}  // namespace pb::test
