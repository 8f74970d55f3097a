#include "engine/quant/kquants.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/quant/f16.h"

namespace pb {
namespace {

int round_clamp(float v, int lo, int hi) {
  return std::clamp(static_cast<int>(std::lround(v)), lo, hi);
}

// x[i] ~= scale * L[i] - min with L in 0..nmax, scale >= 0 and min >= 0 (the Q4_K form).
struct AffineFit {
  float scale;
  float min;
};

// Tries a range of quantization steps around (max - min) / nmax; for each, refits scale and
// offset by weighted least squares on the resulting levels and keeps the lowest weighted error.
AffineFit fit_affine(const float* x, const float* w, int n, int nmax) {
  float lo = 0, hi = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  if (!(hi > lo)) return {0, -lo};
  AffineFit best{(hi - lo) / nmax, -lo};
  float best_err = std::numeric_limits<float>::infinity();
  int levels[256];
  for (int step = -1; step <= 20; ++step) {
    const float span = step < 0 ? nmax : nmax - 1 + 0.1f * step;
    const float iscale = span / (hi - lo);
    float sw = 0, sl = 0, sl2 = 0, sx = 0, sxl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = round_clamp(iscale * (x[i] - lo), 0, nmax);
      levels[i] = l;
      sw += w[i];
      sl += w[i] * l;
      sl2 += w[i] * l * l;
      sx += w[i] * x[i];
      sxl += w[i] * x[i] * l;
    }
    float a = 1 / iscale, b = lo;  // x ~= a * L + b
    if (step >= 0) {
      const float det = sw * sl2 - sl * sl;
      if (det <= 0) continue;
      a = (sw * sxl - sx * sl) / det;
      b = (sl2 * sx - sl * sxl) / det;
      if (b > 0) {  // the format subtracts a non-negative min
        b = 0;
        a = sxl / sl2;
      }
      if (a <= 0) continue;
    }
    float err = 0;
    for (int i = 0; i < n; ++i) {
      const float e = a * levels[i] + b - x[i];
      err += w[i] * e * e;
    }
    if (err < best_err) {
      best_err = err;
      best = {a, -b};
    }
  }
  return best;
}

// x[i] ~= scale * L[i] with L in -nmax..nmax-1; scale may be negative so that the largest
// magnitude lands on -nmax, the side with one more level. Minimizes the squared error.
float fit_symmetric(const float* x, int n, int nmax) {
  float amax = 0, max = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  if (amax == 0) return 0;
  float best_scale = 0, best_score = -1;
  for (int step = -9; step <= 9; ++step) {
    const float iscale = -(nmax + 0.1f * step) / max;
    float sxl = 0, sl2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = round_clamp(iscale * x[i], -nmax, nmax - 1);
      sxl += x[i] * l;
      sl2 += static_cast<float>(l * l);
    }
    // For a fixed set of levels the best scale is sxl / sl2 and the error drops by sxl^2 / sl2.
    if (sl2 > 0 && sxl * sxl / sl2 > best_score) {
      best_score = sxl * sxl / sl2;
      best_scale = sxl / sl2;
    }
  }
  return best_scale;
}

}  // namespace

void quantize_block_q4_k(const float* x, BlockQ4_K& out) {
  AffineFit fits[8];
  float max_scale = 0, max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + 32 * j;
    float sum_x2 = 0;
    for (int l = 0; l < 32; ++l) sum_x2 += xs[l] * xs[l];
    const float av = std::sqrt(sum_x2 / 32);
    float w[32];
    for (int l = 0; l < 32; ++l) w[l] = av + std::fabs(xs[l]);  // favour the large weights
    fits[j] = fit_affine(xs, w, 32, 15);
    max_scale = std::max(max_scale, fits[j].scale);
    max_min = std::max(max_min, fits[j].min);
  }
  out.d = float_to_half_bits(max_scale / 63);
  out.dmin = float_to_half_bits(max_min / 63);
  const float d = half_bits_to_float(out.d);
  const float dmin = half_bits_to_float(out.dmin);
  for (int j = 0; j < 8; ++j) {
    const auto sc = static_cast<uint8_t>(d > 0 ? round_clamp(fits[j].scale / d, 0, 63) : 0);
    const auto m = static_cast<uint8_t>(dmin > 0 ? round_clamp(fits[j].min / dmin, 0, 63) : 0);
    q4_k_set_scale_min(out.scales, j, {sc, m});
    // Levels against the scale and min the block really stores.
    const float step = d * sc;
    const float offset = dmin * m;
    for (int l = 0; l < 32; ++l) {
      const int i = 32 * j + l;
      const int q = step > 0 ? round_clamp((x[i] + offset) / step, 0, 15) : 0;
      q4_k_set_quant(out, i, static_cast<uint8_t>(q));
    }
  }
}

void quantize_block_q6_k(const float* x, BlockQ6_K& out) {
  float scales[16];
  float max_scale = 0;
  for (int j = 0; j < 16; ++j) {
    scales[j] = fit_symmetric(x + 16 * j, 16, 32);
    if (std::fabs(scales[j]) > std::fabs(max_scale)) max_scale = scales[j];
  }
  // The largest sub-block scale maps to -128, the end of int8 with one more step.
  const float iscale = max_scale != 0 ? -128.0f / max_scale : 0.0f;
  out.d = float_to_half_bits(max_scale != 0 ? 1.0f / iscale : 0.0f);
  const float d = half_bits_to_float(out.d);
  for (int j = 0; j < 16; ++j) {
    out.scales[j] = static_cast<int8_t>(round_clamp(iscale * scales[j], -128, 127));
    const float step = d * out.scales[j];
    for (int l = 0; l < 16; ++l) {
      const int i = 16 * j + l;
      const int q = step != 0 ? round_clamp(x[i] / step, -32, 31) : 0;
      q6_k_set_quant(out, i, static_cast<uint8_t>(q + 32));
    }
  }
}

}  // namespace pb
