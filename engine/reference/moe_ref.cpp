#include "engine/reference/moe_ref.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/quant/quantize.h"

namespace pb::ref {
namespace {

// a before b in the routing order: larger logit, then lower index; NaN after every number.
bool ranks_before(float va, uint32_t a, float vb, uint32_t b) {
  const bool na = std::isnan(va), nb = std::isnan(vb);
  if (na != nb) return nb;
  if (!na && va != vb) return va > vb;  // -0 == +0 falls through to the index
  return a < b;
}

// sum_k w[k] * x[k] in float64, rounded to float32 as a kernel stores it.
float dot(const float* w, const float* x, uint32_t n) {
  double sum = 0;
  for (uint32_t k = 0; k < n; ++k) sum += double(w[k]) * double(x[k]);
  return static_cast<float>(sum);
}

float silu_mul(float gate, float up) {
  const double g = gate;
  return static_cast<float>(g / (1.0 + std::exp(-g)) * up);
}

// y[r] = W[r] . x for a row-major rows × cols matrix.
void matvec(const float* w, uint32_t rows, uint32_t cols, const float* x, float* y) {
  for (uint32_t r = 0; r < rows; ++r) y[r] = dot(w + size_t(r) * cols, x, cols);
}

// SwiGLU FFN of one column: out = W_down (silu(W_gate x) * (W_up x)).
void swiglu_ffn(const float* gate, const float* up, const float* down, uint32_t ffn, uint32_t hidden,
                const float* x, float* out) {
  std::vector<float> g(ffn), u(ffn);
  matvec(gate, ffn, hidden, x, g.data());
  matvec(up, ffn, hidden, x, u.data());
  for (uint32_t i = 0; i < ffn; ++i) g[i] = silu_mul(g[i], u[i]);
  matvec(down, hidden, ffn, g.data(), out);
}

}  // namespace

void moe_topk(std::span<const float> logits, uint32_t logits_stride, uint32_t n_experts,
              uint32_t top_k, bool norm_topk, uint32_t ncols, std::span<uint32_t> route_e,
              std::span<float> route_w) {
  std::vector<uint32_t> order(n_experts);
  for (uint32_t t = 0; t < ncols; ++t) {
    const float* row = logits.data() + size_t(t) * logits_stride;
    double row_max = -INFINITY;
    for (uint32_t e = 0; e < n_experts; ++e) {
      if (!std::isnan(row[e])) row_max = std::max(row_max, double(row[e]));
    }
    const bool empty_row = row_max == -INFINITY;
    double row_sum = 0;
    for (uint32_t e = 0; e < n_experts; ++e) {
      if (!std::isnan(row[e]) && !empty_row) row_sum += std::exp(row[e] - row_max);
    }
    std::iota(order.begin(), order.end(), 0u);
    std::partial_sort(order.begin(), order.begin() + top_k, order.end(), [&](uint32_t a, uint32_t b) {
      return ranks_before(row[a], a, row[b], b);
    });
    std::vector<double> p(top_k);
    double total = 0;
    for (uint32_t j = 0; j < top_k; ++j) {
      const float v = row[order[j]];
      p[j] = std::isnan(v) || empty_row ? 0.0 : std::exp(v - row_max) / row_sum;
      total += p[j];
    }
    for (uint32_t j = 0; j < top_k; ++j) {
      route_e[size_t(t) * top_k + j] = order[j];
      route_w[size_t(t) * top_k + j] = static_cast<float>(norm_topk && total > 0 ? p[j] / total : p[j]);
    }
  }
}

MoeWorkList moe_group(std::span<const uint32_t> route_e, uint32_t n_experts) {
  std::vector<std::vector<uint32_t>> by_expert(n_experts);
  for (uint32_t a = 0; a < route_e.size(); ++a) {
    if (route_e[a] < n_experts) by_expert[route_e[a]].push_back(a);
  }
  MoeWorkList list;
  for (uint32_t e = 0; e < n_experts; ++e) {
    if (by_expert[e].empty()) continue;
    const auto first = static_cast<uint32_t>(list.assignments.size());
    list.items.push_back({e, static_cast<uint32_t>(by_expert[e].size()), first, 0});
    list.assignments.insert(list.assignments.end(), by_expert[e].begin(), by_expert[e].end());
  }
  return list;
}

void moe_dmmv(WeightFormat format, std::span<const uint8_t> weights, uint32_t rows, uint32_t cols,
              std::span<const uint32_t> route_e, uint32_t top_k, bool input_per_assignment,
              std::span<const float> x, uint32_t x_stride, std::span<float> y, uint32_t y_stride) {
  const uint64_t rb = row_bytes(format, cols);
  std::vector<float> row(cols);
  for (uint32_t a = 0; a < route_e.size(); ++a) {
    const uint64_t expert_base = uint64_t(route_e[a]) * rows * rb;
    const float* xc = x.data() + size_t(input_per_assignment ? a : a / top_k) * x_stride;
    for (uint32_t r = 0; r < rows; ++r) {
      dequantize_row(format, weights.subspan(expert_base + r * rb, rb), row);
      y[size_t(a) * y_stride + r] = dot(row.data(), xc, cols);
    }
  }
}

void moe_acc(std::span<const float> route_w, uint32_t top_k, std::span<const float> out,
             uint32_t out_stride, std::span<float> x, uint32_t x_stride, uint32_t n, uint32_t ncols) {
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t i = 0; i < n; ++i) {
      double sum = 0;
      for (uint32_t j = 0; j < top_k; ++j) {
        const size_t a = size_t(c) * top_k + j;
        sum += double(route_w[a]) * out[a * out_stride + i];
      }
      float& xi = x[size_t(c) * x_stride + i];
      xi = static_cast<float>(xi + sum);
    }
  }
}

std::vector<float> dequantize_tensor(WeightFormat format, std::span<const uint8_t> bytes, uint64_t rows,
                                     uint32_t cols) {
  const uint64_t rb = row_bytes(format, cols);
  std::vector<float> out(rows * cols);
  for (uint64_t r = 0; r < rows; ++r) {
    dequantize_row(format, bytes.subspan(r * rb, rb), std::span(out).subspan(r * cols, cols));
  }
  return out;
}

void moe_block(const MoeShape& s, uint32_t hidden, const MoeDenseWeights& w,
               std::span<const float> xn, uint32_t xn_stride, std::span<float> x, uint32_t x_stride,
               uint32_t ncols) {
  const uint32_t E = s.n_experts, K = s.top_k, F = s.expert_ffn, Fs = s.shared_expert_ffn;
  std::vector<float> logits(size_t(ncols) * E);
  for (uint32_t c = 0; c < ncols; ++c) {
    matvec(w.router.data(), E, hidden, xn.data() + size_t(c) * xn_stride, logits.data() + size_t(c) * E);
  }
  std::vector<uint32_t> route_e(size_t(ncols) * K);
  std::vector<float> route_w(size_t(ncols) * K);
  moe_topk(logits, E, E, K, s.norm_topk, ncols, route_e, route_w);

  // The shared expert first, then the routed experts: the engine's order of adds into x.
  if (Fs > 0) {
    std::vector<float> shared(hidden);
    for (uint32_t c = 0; c < ncols; ++c) {
      const float* xc = xn.data() + size_t(c) * xn_stride;
      swiglu_ffn(w.shared_gate.data(), w.shared_up.data(), w.shared_down.data(), Fs, hidden, xc,
                 shared.data());
      float* xo = x.data() + size_t(c) * x_stride;
      const double gate = w.shared_gate_inp.empty() ? INFINITY : dot(w.shared_gate_inp.data(), xc, hidden);
      const double scale = 1.0 / (1.0 + std::exp(-gate));  // 1 without a gate
      for (uint32_t i = 0; i < hidden; ++i) xo[i] = xo[i] + static_cast<float>(shared[i] * scale);
    }
  }

  const size_t up_stride = size_t(F) * hidden, down_stride = size_t(hidden) * F;
  std::vector<float> out(size_t(ncols) * K * hidden);
  for (uint32_t a = 0; a < ncols * K; ++a) {
    const size_t e = route_e[a];
    swiglu_ffn(w.gate_exps.data() + e * up_stride, w.up_exps.data() + e * up_stride,
               w.down_exps.data() + e * down_stride, F, hidden, xn.data() + size_t(a / K) * xn_stride,
               out.data() + size_t(a) * hidden);
  }
  moe_acc(route_w, K, out, hidden, x, x_stride, hidden, ncols);
}

}  // namespace pb::ref
