#include "engine/reference/dmmv_ref.h"

#include <vector>

#include "engine/quant/quantize.h"

namespace pb::ref {

void dmmv(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
          std::span<const float> x, uint32_t ncols, uint32_t x_stride, std::span<float> y,
          uint32_t y_stride, bool accumulate) {
  const uint64_t rb = row_bytes(format, cols);
  std::vector<float> row(cols);
  for (uint32_t r = 0; r < rows; ++r) {
    dequantize_row(format, weights.subspan(r * rb, rb), row);
    for (uint32_t c = 0; c < ncols; ++c) {
      double sum = 0;
      const float* xc = x.data() + size_t(c) * x_stride;
      for (uint32_t k = 0; k < cols; ++k) sum += double(row[k]) * double(xc[k]);
      float& out = y[size_t(c) * y_stride + r];
      out = accumulate ? static_cast<float>(out + sum) : static_cast<float>(sum);
    }
  }
}

}  // namespace pb::ref
