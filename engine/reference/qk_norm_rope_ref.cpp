#include "engine/reference/qk_norm_rope_ref.h"

#include <cmath>
#include <vector>

namespace pb::ref {
namespace {

void one_head(float* head, std::span<const float> norm, uint32_t position,
              const QkNormRopeParams& p) {
  std::vector<double> v(head, head + p.head_dim);
  if (p.qk_norm) {
    double squares = 0;
    for (double e : v) squares += e * e;
    const double scale = 1.0 / std::sqrt(squares / p.head_dim + double(p.eps));
    for (uint32_t d = 0; d < p.head_dim; ++d) {
      v[d] *= scale * (p.add_one ? 1.0 + double(norm[d]) : double(norm[d]));
    }
  }
  const uint32_t half = p.rope_dims / 2;
  for (uint32_t i = 0; i < half; ++i) {
    const double angle = double(position) * std::pow(p.theta, -2.0 * i / p.rope_dims);
    const double cs = std::cos(angle), sn = std::sin(angle);
    const uint32_t a = p.neox ? i : 2 * i;
    const uint32_t b = p.neox ? i + half : 2 * i + 1;
    const double x0 = v[a], x1 = v[b];
    v[a] = x0 * cs - x1 * sn;
    v[b] = x0 * sn + x1 * cs;
  }
  for (uint32_t d = 0; d < p.head_dim; ++d) head[d] = static_cast<float>(v[d]);
}

}  // namespace

void qk_norm_rope(std::span<float> q, std::span<float> k, std::span<const float> q_norm,
                  std::span<const float> k_norm, const QkNormRopeParams& p) {
  for (uint32_t c = 0; c < p.ncols; ++c) {
    for (uint32_t h = 0; h < p.n_q_heads; ++h) {
      one_head(q.data() + size_t(c) * p.q_stride + h * p.head_dim, q_norm, p.pos0 + c, p);
    }
    for (uint32_t h = 0; h < p.n_k_heads; ++h) {
      one_head(k.data() + size_t(c) * p.k_stride + h * p.head_dim, k_norm, p.pos0 + c, p);
    }
  }
}

}  // namespace pb::ref
