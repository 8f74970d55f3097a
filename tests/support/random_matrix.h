// A random weight matrix in a GGUF format, with its dequantized values: what the projection
// kernel tests feed the GPU and compare against.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "engine/quant/weight_format.h"

namespace pb::test {

struct Matrix {
  std::vector<uint8_t> bytes;       // rows of row_bytes(format, cols)
  std::vector<float> dequantized;  // rows × cols
};

// Rows drawn from N(0, 0.05), quantized to `format`.
Matrix random_matrix(WeightFormat format, uint32_t rows, uint32_t cols, std::mt19937& rng);

}  // namespace pb::test
