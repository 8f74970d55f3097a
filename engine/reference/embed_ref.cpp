#include "engine/reference/embed_ref.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "engine/quant/quantize.h"

namespace pb::ref {

void embed(WeightFormat format, std::span<const uint8_t> table, uint32_t vocab, uint32_t hidden,
           std::span<const uint32_t> tokens, uint32_t pos0, uint32_t ncols, float scale,
           std::span<float> x, uint32_t x_stride) {
  const uint64_t rb = row_bytes(format, hidden);
  std::vector<float> row(hidden);
  for (uint32_t c = 0; c < ncols; ++c) {
    const uint32_t token = tokens[pos0 + c];
    float* out = x.data() + size_t(c) * x_stride;
    if (token >= vocab) {
      std::fill(out, out + hidden, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    dequantize_row(format, table.subspan(token * rb, rb), row);
    for (uint32_t i = 0; i < hidden; ++i) out[i] = row[i] * scale;
  }
}

}  // namespace pb::ref
