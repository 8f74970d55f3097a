#include "engine/reference/ssm_ref.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pb::ref {
namespace {

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }

// The l2-normalized head of d floats at `x`, times `scale`.
std::vector<double> l2_normalized(const float* x, uint32_t d, double eps, double scale) {
  double squares = 0;
  for (uint32_t i = 0; i < d; ++i) squares += double(x[i]) * x[i];
  const double factor = scale / std::sqrt(squares + eps);
  std::vector<double> out(d);
  for (uint32_t i = 0; i < d; ++i) out[i] = x[i] * factor;
  return out;
}

}  // namespace

void ssm_conv(std::span<const float> x, uint32_t channels, uint32_t ncols, uint32_t x_stride,
              std::span<const float> w, uint32_t width, std::span<float> state, std::span<float> y,
              uint32_t y_stride) {
  const uint32_t carried = width - 1;
  for (uint32_t ch = 0; ch < channels; ++ch) {
    // The channel's inputs: the carried ones, then this call's.
    std::vector<float> inputs(state.begin() + size_t(ch) * carried,
                              state.begin() + size_t(ch + 1) * carried);
    for (uint32_t c = 0; c < ncols; ++c) inputs.push_back(x[size_t(c) * x_stride + ch]);
    for (uint32_t c = 0; c < ncols; ++c) {
      double acc = 0;
      for (uint32_t i = 0; i < width; ++i) acc += double(w[size_t(ch) * width + i]) * inputs[c + i];
      y[size_t(c) * y_stride + ch] = static_cast<float>(silu(acc));
    }
    for (uint32_t i = 0; i < carried; ++i) state[size_t(ch) * carried + i] = inputs[ncols + i];
  }
}

void ssm_delta(const SsmDeltaInputs& in, std::span<float> state, std::span<float> o,
               uint32_t o_stride) {
  const SsmShape& s = in.shape;
  const uint32_t dk = s.d_k, dv = s.d_v;
  std::vector<double> S(dk * size_t(dv));
  for (uint32_t h = 0; h < s.value_heads; ++h) {
    const uint32_t kh = h / s.group();
    float* head_state = state.data() + size_t(h) * dk * dv;
    for (size_t e = 0; e < S.size(); ++e) S[e] = head_state[e];
    const double a_coef = in.a_is_neg_exp ? double(in.a_log[h]) : -std::exp(double(in.a_log[h]));
    for (uint32_t c = 0; c < in.ncols; ++c) {
      const float* column = in.qkv.data() + size_t(c) * in.qkv_stride;
      const auto q = l2_normalized(column + in.q_offset + kh * dk, dk, in.l2_eps, 1.0 / std::sqrt(double(dk)));
      const auto k = l2_normalized(column + in.k_offset + kh * dk, dk, in.l2_eps, 1.0);
      const float* v = column + in.v_offset + size_t(h) * dv;
      const double beta = sigmoid(in.b[size_t(c) * in.b_stride + h]);
      const double g = a_coef * softplus(double(in.a[size_t(c) * in.a_stride + h]) + in.dt_bias[h]);
      const double decay = std::exp(g);
      for (uint32_t j = 0; j < dv; ++j) {
        double kv = 0;
        for (uint32_t i = 0; i < dk; ++i) {
          S[size_t(i) * dv + j] *= decay;
          kv += S[size_t(i) * dv + j] * k[i];
        }
        const double delta = beta * (v[j] - kv);
        double out = 0;
        for (uint32_t i = 0; i < dk; ++i) {
          S[size_t(i) * dv + j] += k[i] * delta;
          out += S[size_t(i) * dv + j] * q[i];
        }
        o[size_t(c) * o_stride + size_t(h) * dv + j] = static_cast<float>(out);
      }
    }
    for (size_t e = 0; e < S.size(); ++e) head_state[e] = static_cast<float>(S[e]);
  }
}

void ssm_gnorm(std::span<const float> o, uint32_t o_stride, std::span<const float> z,
               uint32_t z_stride, std::span<const float> w, uint32_t heads, uint32_t n,
               uint32_t ncols, float eps, std::span<float> y, uint32_t y_stride) {
  for (uint32_t c = 0; c < ncols; ++c) {
    for (uint32_t h = 0; h < heads; ++h) {
      const float* oh = o.data() + size_t(c) * o_stride + size_t(h) * n;
      const float* zh = z.data() + size_t(c) * z_stride + size_t(h) * n;
      double squares = 0;
      for (uint32_t i = 0; i < n; ++i) squares += double(oh[i]) * oh[i];
      const double scale = 1.0 / std::sqrt(squares / n + double(eps));
      for (uint32_t i = 0; i < n; ++i) {
        y[size_t(c) * y_stride + size_t(h) * n + i] =
            static_cast<float>(oh[i] * scale * double(w[i]) * silu(zh[i]));
      }
    }
  }
}

}  // namespace pb::ref
