// Block contents, mirrored line for line by kernels/synth_weights.comp. With w(i) the i-th
// random word of the block (synth_hash.h) and jitter(bits, r) = bits - J + ((r & 1023) * 2J >> 10),
// J = min(512, bits >> 1), a per-block spread of the scale by up to a factor ~1.4 either way
// that can neither reach zero nor infinity:
//   F32, F16  u = (w0 & 1023) + ((w0 >> 10) & 1023) - 1023 (triangular), value = u * step, with
//             step the power of two in scale_bits; exact in either format.
//   Q8_0      d = jitter(scale_bits, w0); qs = bytes of w1..w8, with -128 replaced by 0 (so
//             the quants are symmetric around zero, as ggml's are).
//   Q4_K      d = jitter(scale_bits, w0), dmin = exactly 8 d (integer work on the f16 bits);
//             sub-block j: sc = 32 + 2 * ((w1 >> 4j) & 15) + ((w2 >> j) & 1)   (32..63),
//             m = (15 sc + 8) / 16 + ((w2 >> (8 + 2j)) & 1) - ((w2 >> (9 + 2j)) & 1), so that
//             d * sc * 7.5 (the mean quant) ~= dmin * m and each sub-block centres near zero;
//             qs = bytes of w3..w34.
//   Q6_K      d = jitter(scale_bits, w0); scale byte k of w1..w4: +-(64 + (b & 63)), sign from
//             bit 7; ql = bytes of w5..w36; qh = bytes of w37..w52.
#include "engine/quant/synthetic.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "engine/quant/f16.h"
#include "engine/quant/synth_hash.h"
#include "harness/errors.h"

namespace pb {
namespace {

// Root-mean-square of the dequantized values for a base scale of 1. From the distributions
// above, times the jitter's root-mean-square factor of about sqrt(1 + 1/12): Q8_0
// sqrt(5397.5 * 1.083) = 76.5, Q4_K sqrt(E[sc^2] 2341.5 * Var(q) 21.25 * 1.083) = 232, Q6_K
// sqrt(E[sc^2] 9461.5 * E[(q-32)^2] 341.5 * 1.083) = 1871; the constants are those figures
// corrected by measurement on 2^20 weights across f16 normal and subnormal base scales.
constexpr double kUnitRmsDense = 418.04;  // sqrt(2 * (1024^2 - 1) / 12)
constexpr double kUnitRmsQ8_0 = 75.5;
constexpr double kUnitRmsQ4_K = 230.5;
constexpr double kUnitRmsQ6_K = 1849.0;
// Jitter adds at most 512 to the bits and Q4_K's dmin = 8 d adds 0xC00: both stay finite.
constexpr uint32_t kMaxScaleBits = 0x7800;
constexpr uint32_t kMaxQ4KScaleBits = 0x6C00;

uint32_t jitter(uint32_t bits, uint32_t r) {
  const uint32_t j = std::min(512u, bits >> 1);
  return bits - j + (((r & 1023u) * (2 * j)) >> 10);
}

// Exponent e of the power of two 2^e whose f16 bits are `bits` (normal or subnormal).
int pow2_exponent(uint32_t bits) {
  const uint32_t field = (bits >> 10) & 31u;
  if (field == 0) return (31 - std::countl_zero(bits & 1023u)) - 24;
  return static_cast<int>(field) - 15;
}

// u * 2^e as f32 bits, for |u| < 2^24 and e >= -24 (always normal).
uint32_t scaled_int_f32_bits(int u, int e) {
  if (u == 0) return 0;
  const uint32_t sign = u < 0 ? 0x80000000u : 0u;
  const uint32_t a = static_cast<uint32_t>(u < 0 ? -u : u);
  const int msb = 31 - std::countl_zero(a);
  const uint32_t mantissa = (a << (23 - msb)) & 0x7FFFFFu;
  return sign | (static_cast<uint32_t>(msb + e + 127) << 23) | mantissa;
}

// u * 2^e as f16 bits, for |u| < 2^11, e >= -24 and the result below 65504.
uint32_t scaled_int_f16_bits(int u, int e) {
  if (u == 0) return 0;
  const uint32_t sign = u < 0 ? 0x8000u : 0u;
  const uint32_t a = static_cast<uint32_t>(u < 0 ? -u : u);
  const int msb = 31 - std::countl_zero(a);
  const int exponent = msb + e + 15;
  if (exponent >= 1) {
    return sign | (static_cast<uint32_t>(exponent) << 10) | ((a << (10 - msb)) & 0x3FFu);
  }
  return sign | (a << (e + 24));  // subnormal: a multiple of 2^-24
}

// 8 * h for f16 bits h (exact: no rounding for any finite h below 2^12).
uint32_t times8_f16_bits(uint32_t bits) {
  if (((bits >> 10) & 31u) != 0) return bits + 0x0C00u;
  return scaled_int_f16_bits(static_cast<int>(bits & 1023u), -21);  // subnormal: mant * 2^-21
}

int triangular(uint32_t r) {
  return static_cast<int>(r & 1023u) + static_cast<int>((r >> 10) & 1023u) - 1023;
}

void put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
void put32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

void write_block(WeightFormat format, uint32_t state, SyntheticScale s, uint8_t* out) {
  auto w = [state](uint32_t i) { return synth::word(state, i); };
  switch (format) {
    case WeightFormat::F32:
      return put32(out, scaled_int_f32_bits(triangular(w(0)), pow2_exponent(s.scale_bits)));
    case WeightFormat::F16:
      return put16(out, scaled_int_f16_bits(triangular(w(0)), pow2_exponent(s.scale_bits)));
    case WeightFormat::Q8_0: {
      put16(out, jitter(s.scale_bits, w(0)));
      for (uint32_t k = 0; k < 32; ++k) {
        const uint32_t b = (w(1 + k / 4) >> (8 * (k % 4))) & 0xFFu;
        out[2 + k] = static_cast<uint8_t>(b == 0x80u ? 0u : b);
      }
      return;
    }
    case WeightFormat::Q4_K: {
      const uint32_t w0 = w(0), w1 = w(1), w2 = w(2);
      const uint32_t d = jitter(s.scale_bits, w0);
      put16(out, d);
      put16(out + 2, times8_f16_bits(d));
      uint32_t sc[8], m[8];
      for (uint32_t j = 0; j < 8; ++j) {
        sc[j] = 32 + 2 * ((w1 >> (4 * j)) & 15u) + ((w2 >> j) & 1u);
        m[j] = ((15 * sc[j] + 8) >> 4) + ((w2 >> (8 + 2 * j)) & 1u) - ((w2 >> (9 + 2 * j)) & 1u);
      }
      // The 12 scale bytes in the packing of blocks.h (q4_k_scale_min).
      for (uint32_t k = 0; k < 4; ++k) {
        out[4 + k] = static_cast<uint8_t>((sc[k] & 63) | ((sc[k + 4] >> 4) << 6));
        out[8 + k] = static_cast<uint8_t>((m[k] & 63) | ((m[k + 4] >> 4) << 6));
        out[12 + k] = static_cast<uint8_t>((sc[k + 4] & 15) | ((m[k + 4] & 15) << 4));
      }
      for (uint32_t k = 0; k < 32; ++k) put32(out + 16 + 4 * k, w(3 + k));
      return;
    }
    case WeightFormat::Q6_K: {
      for (uint32_t k = 0; k < 48; ++k) put32(out + 4 * k, w(5 + k));  // ql then qh
      for (uint32_t k = 0; k < 16; ++k) {
        const uint32_t b = (w(1 + k / 4) >> (8 * (k % 4))) & 0xFFu;
        const uint32_t magnitude = 64 + (b & 63u);
        out[192 + k] = static_cast<uint8_t>((b & 0x80u) ? 0u - magnitude : magnitude);
      }
      put16(out + 208, jitter(s.scale_bits, w(0)));
      return;
    }
  }
}

uint32_t clamp_bits(uint16_t bits, uint32_t max = kMaxScaleBits) {
  return std::clamp<uint32_t>(bits, 1, max);
}

}  // namespace

SyntheticScale synthetic_scale(WeightFormat format, float target_std) {
  if (!(target_std > 0) || !std::isfinite(target_std)) {
    throw UsageError("synthetic weights need a positive finite standard deviation; got " +
                     std::to_string(target_std));
  }
  const double t = target_std;
  switch (format) {
    case WeightFormat::F32:
    case WeightFormat::F16: {
      // Steps from 2^-24 (smallest f16 subnormal) to 2^5 (largest that keeps 1023 * step finite).
      const int e = std::clamp(static_cast<int>(std::lround(std::log2(t / kUnitRmsDense))), -24, 5);
      const uint32_t bits = e >= -14 ? static_cast<uint32_t>(e + 15) << 10 : 1u << (e + 24);
      return {bits};
    }
    case WeightFormat::Q8_0:
      return {clamp_bits(float_to_half_bits(static_cast<float>(t / kUnitRmsQ8_0)))};
    case WeightFormat::Q4_K:
      return {clamp_bits(float_to_half_bits(static_cast<float>(t / kUnitRmsQ4_K)),
                         kMaxQ4KScaleBits)};
    case WeightFormat::Q6_K:
      return {clamp_bits(float_to_half_bits(static_cast<float>(t / kUnitRmsQ6_K)))};
  }
  return {};
}

void generate_synthetic_blocks(WeightFormat format, uint32_t seed, uint32_t tensor_id,
                               uint64_t first_block, uint64_t block_count, SyntheticScale scale,
                               std::span<uint8_t> out) {
  const uint32_t bytes = block_bytes(format);
  if (out.size() != block_count * bytes) {
    throw UsageError("generate_synthetic_blocks: " + std::to_string(block_count) + " " +
                     std::string(format_name(format)) + " blocks take " +
                     std::to_string(block_count * bytes) + " bytes; got a buffer of " +
                     std::to_string(out.size()));
  }
  if (first_block + block_count > (1ull << 32)) {
    throw UsageError("synthetic " + std::string(format_name(format)) + " tensor of " +
                     std::to_string(first_block + block_count) +
                     " blocks exceeds the 32-bit block counter (2^32 blocks)");
  }
  const uint32_t key = synth::key(seed, tensor_id);
  for (uint64_t b = 0; b < block_count; ++b) {
    const auto block = static_cast<uint32_t>(first_block + b);
    write_block(format, synth::block_state(key, block), scale, out.data() + b * bytes);
  }
}

void generate_synthetic(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t rows,
                        uint64_t cols, float target_std, std::span<uint8_t> out) {
  const uint64_t blocks = rows * (cols / block_weights(format));
  (void)row_bytes(format, cols);  // throws on a partial block
  generate_synthetic_blocks(format, seed, tensor_id, 0, blocks,
                            synthetic_scale(format, target_std), out);
}

std::vector<float> synthetic_f32_values(uint32_t seed, uint32_t tensor_id, size_t count,
                                        float center, float spread) {
  if (!(spread >= 0) || !std::isfinite(spread) || !std::isfinite(center)) {
    throw UsageError("synthetic_f32_values needs a finite center and a finite spread >= 0; got " +
                     std::to_string(center) + " and " + std::to_string(spread));
  }
  const auto k_max = static_cast<int64_t>(std::floor(static_cast<double>(spread) * 1024));
  const uint32_t key = synth::key(seed, tensor_id);
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t r = synth::word(synth::block_state(key, static_cast<uint32_t>(i)), 0);
    const int64_t k = static_cast<int64_t>(r % static_cast<uint64_t>(2 * k_max + 1)) - k_max;
    values[i] = center + static_cast<float>(static_cast<double>(k) / 1024.0);
  }
  return values;
}

}  // namespace pb
