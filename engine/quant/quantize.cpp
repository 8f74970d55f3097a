#include "engine/quant/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "engine/quant/blocks.h"
#include "engine/quant/f16.h"
#include "engine/quant/kquants.h"
#include "harness/errors.h"

namespace pb {
namespace {

void check_sizes(WeightFormat format, size_t weights, size_t bytes, const char* what) {
  const uint64_t expected = row_bytes(format, weights);
  if (bytes != expected) {
    throw UsageError(std::string(what) + ": a " + std::string(format_name(format)) + " row of " +
                     std::to_string(weights) + " weights takes " + std::to_string(expected) +
                     " bytes; got a buffer of " + std::to_string(bytes));
  }
}

// Blocks are read and written through memcpy: row bytes carry no alignment guarantee.
template <typename Block>
Block load_block(const uint8_t* bytes) {
  Block b;
  std::memcpy(&b, bytes, sizeof(Block));
  return b;
}

void quantize_block_q8_0(const float* x, BlockQ8_0& out) {
  float amax = 0;
  for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[i]));
  out.d = float_to_half_bits(amax / 127.0f);
  const float d = half_bits_to_float(out.d);
  const float inv = d != 0 ? 1.0f / d : 0.0f;
  for (int i = 0; i < 32; ++i) {
    out.qs[i] = static_cast<int8_t>(std::clamp(std::lround(x[i] * inv), -127L, 127L));
  }
}

void dequantize_block_q8_0(const BlockQ8_0& b, float* y) {
  const float d = half_bits_to_float(b.d);
  for (int i = 0; i < 32; ++i) y[i] = static_cast<float>(b.qs[i]) * d;
}

void dequantize_block_q4_k(const BlockQ4_K& b, float* y) {
  const float d = half_bits_to_float(b.d);
  const float dmin = half_bits_to_float(b.dmin);
  for (int j = 0; j < 8; ++j) {
    const ScaleMin sm = q4_k_scale_min(b.scales, j);
    const float scale = d * static_cast<float>(sm.scale);
    const float min = dmin * static_cast<float>(sm.min);
    for (int l = 0; l < 32; ++l) {
      const int i = 32 * j + l;
      y[i] = scale * static_cast<float>(q4_k_quant(b, i)) - min;
    }
  }
}

void dequantize_block_q6_k(const BlockQ6_K& b, float* y) {
  const float d = half_bits_to_float(b.d);
  for (int i = 0; i < 256; ++i) {
    const int q = static_cast<int>(q6_k_quant(b, i)) - 32;
    y[i] = d * static_cast<float>(b.scales[i / 16]) * static_cast<float>(q);
  }
}

template <typename Block, typename Fn>
void for_each_block_out(std::span<const float> values, std::span<uint8_t> out, int weights,
                        Fn quantize_block) {
  for (size_t b = 0; b < values.size() / weights; ++b) {
    Block block{};
    quantize_block(values.data() + b * weights, block);
    std::memcpy(out.data() + b * sizeof(Block), &block, sizeof(Block));
  }
}

template <typename Block, typename Fn>
void for_each_block_in(std::span<const uint8_t> in, std::span<float> out, int weights,
                       Fn dequantize_block) {
  for (size_t b = 0; b < out.size() / weights; ++b) {
    dequantize_block(load_block<Block>(in.data() + b * sizeof(Block)), out.data() + b * weights);
  }
}

}  // namespace

void quantize_row(WeightFormat format, std::span<const float> values, std::span<uint8_t> out) {
  check_sizes(format, values.size(), out.size(), "quantize_row");
  switch (format) {
    case WeightFormat::F32:
      std::memcpy(out.data(), values.data(), values.size_bytes());
      return;
    case WeightFormat::F16:
      for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t h = float_to_half_bits(values[i]);
        std::memcpy(out.data() + 2 * i, &h, 2);
      }
      return;
    case WeightFormat::Q8_0:
      return for_each_block_out<BlockQ8_0>(values, out, 32, quantize_block_q8_0);
    case WeightFormat::Q4_K:
      return for_each_block_out<BlockQ4_K>(values, out, 256, quantize_block_q4_k);
    case WeightFormat::Q6_K:
      return for_each_block_out<BlockQ6_K>(values, out, 256, quantize_block_q6_k);
  }
}

void dequantize_row(WeightFormat format, std::span<const uint8_t> in, std::span<float> out) {
  check_sizes(format, out.size(), in.size(), "dequantize_row");
  switch (format) {
    case WeightFormat::F32:
      std::memcpy(out.data(), in.data(), out.size_bytes());
      return;
    case WeightFormat::F16:
      for (size_t i = 0; i < out.size(); ++i) {
        uint16_t h;
        std::memcpy(&h, in.data() + 2 * i, 2);
        out[i] = half_bits_to_float(h);
      }
      return;
    case WeightFormat::Q8_0:
      return for_each_block_in<BlockQ8_0>(in, out, 32, dequantize_block_q8_0);
    case WeightFormat::Q4_K:
      return for_each_block_in<BlockQ4_K>(in, out, 256, dequantize_block_q4_k);
    case WeightFormat::Q6_K:
      return for_each_block_in<BlockQ6_K>(in, out, 256, dequantize_block_q6_k);
  }
}

}  // namespace pb
