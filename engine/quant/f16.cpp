#include "engine/quant/f16.h"

#include <bit>

namespace pb {

uint16_t float_to_half_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exponent = (bits >> 23) & 0xFFu;
  const uint32_t mantissa = bits & 0x7FFFFFu;

  if (exponent == 0xFFu) {  // infinity or NaN
    if (mantissa == 0) return static_cast<uint16_t>(sign | 0x7C00u);
    return static_cast<uint16_t>(sign | 0x7E00u | (mantissa >> 13));
  }
  // Unbiased exponent re-biased for half.
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (half_exponent >= 1) {
    uint32_t half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1FFFu;
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Half subnormal (or zero): the value in units of 2^-24 is full * 2^-(14 - half_exponent),
  // where full is the 24-bit significand including the implicit bit.
  if (exponent == 0) return static_cast<uint16_t>(sign);  // float subnormal: far below 2^-25
  const int shift = 14 - half_exponent;
  if (shift > 25) return static_cast<uint16_t>(sign);
  const uint32_t full = mantissa | 0x800000u;
  uint32_t half = full >> shift;
  const uint32_t rest = full & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
  return static_cast<uint16_t>(sign | half);
}

float half_bits_to_float(uint16_t bits) {
  const uint32_t sign = (static_cast<uint32_t>(bits) & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1Fu) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) {
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal: mantissa * 2^-24, normalized so its leading bit becomes the implicit one.
  const int msb = 31 - std::countl_zero(mantissa);
  mantissa = (mantissa << (23 - msb)) & 0x7FFFFFu;
  const uint32_t float_exponent = static_cast<uint32_t>(msb - 24 + 127);
  return std::bit_cast<float>(sign | (float_exponent << 23) | mantissa);
}

}  // namespace pb
