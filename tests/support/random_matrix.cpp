#include "tests/support/random_matrix.h"

#include <span>

#include "engine/quant/quantize.h"

namespace pb::test {

Matrix random_matrix(WeightFormat format, uint32_t rows, uint32_t cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const uint64_t rb = row_bytes(format, cols);
  Matrix m{std::vector<uint8_t>(rb * rows), std::vector<float>(size_t(rows) * cols)};
  std::vector<float> row(cols);
  for (uint32_t r = 0; r < rows; ++r) {
    for (auto& v : row) v = normal(rng);
    quantize_row(format, row, std::span(m.bytes).subspan(r * rb, rb));
    dequantize_row(format, std::span(m.bytes).subspan(r * rb, rb),
                   std::span(m.dequantized).subspan(size_t(r) * cols, cols));
  }
  return m;
}

}  // namespace pb::test
