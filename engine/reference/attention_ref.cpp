#include "engine/reference/attention_ref.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/quant/f16.h"

namespace pb::ref {

void attention(const AttentionDims& dims, std::span<const float> q, uint32_t q_stride,
               std::span<const uint16_t> k, std::span<const uint16_t> v, uint32_t pos0,
               uint32_t n_tokens, std::span<float> o, uint32_t o_stride) {
  const uint32_t d = dims.head_dim;
  const uint32_t ratio = dims.n_heads / dims.n_kv_heads;
  std::vector<double> scores, out(d);
  for (uint32_t t = 0; t < n_tokens; ++t) {
    const uint32_t pos = pos0 + t;
    const uint32_t first = (dims.window == 0 || pos + 1 <= dims.window) ? 0 : pos + 1 - dims.window;
    for (uint32_t h = 0; h < dims.n_heads; ++h) {
      const float* qh = q.data() + size_t(t) * q_stride + size_t(h) * d;
      const size_t kv_row0 = size_t(h / ratio) * dims.max_ctx;
      scores.assign(pos + 1 - first, 0.0);
      for (uint32_t j = first; j <= pos; ++j) {
        const uint16_t* kj = k.data() + (kv_row0 + j) * d;
        double dot = 0;
        for (uint32_t i = 0; i < d; ++i) dot += double(qh[i]) * double(half_bits_to_float(kj[i]));
        scores[j - first] = dot * double(dims.scale);
      }
      const double mx = *std::max_element(scores.begin(), scores.end());
      double sum = 0;
      std::fill(out.begin(), out.end(), 0.0);
      for (uint32_t j = first; j <= pos; ++j) {
        const double p = std::exp(scores[j - first] - mx);
        sum += p;
        const uint16_t* vj = v.data() + (kv_row0 + j) * d;
        for (uint32_t i = 0; i < d; ++i) out[i] += p * double(half_bits_to_float(vj[i]));
      }
      float* oh = o.data() + size_t(t) * o_stride + size_t(h) * d;
      for (uint32_t i = 0; i < d; ++i) oh[i] = static_cast<float>(out[i] / sum);
    }
  }
}

}  // namespace pb::ref
