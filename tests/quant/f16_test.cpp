// float <-> f16 bits against known bit patterns, and exhaustively against each other.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "engine/quant/f16.h"

namespace pb {
namespace {

float bits_float(uint32_t b) { return std::bit_cast<float>(b); }

TEST(QuantF16, KnownValues) {
  EXPECT_EQ(float_to_half_bits(0.0f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half_bits(0.5f), 0x3800);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7BFF);          // largest finite
  EXPECT_EQ(float_to_half_bits(0.333333343f), 0x3555);
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1023.0f, -24)), 0x03FF);  // largest subnormal
}

TEST(QuantF16, InfinityNanAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_half_bits(inf), 0x7C00);
  EXPECT_EQ(float_to_half_bits(-inf), 0xFC00);
  EXPECT_EQ(float_to_half_bits(1e6f), 0x7C00);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7C00);   // halfway to 2^16 rounds to even: inf
  EXPECT_EQ(float_to_half_bits(65519.99f), 0x7BFF);
  const uint16_t nan = float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  // A signalling NaN whose payload lives only in the low bits must stay a NaN.
  const uint16_t snan = float_to_half_bits(bits_float(0x7F800001u));
  EXPECT_EQ(snan & 0x7C00, 0x7C00);
  EXPECT_NE(snan & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(half_bits_to_float(0x7E00)));
  EXPECT_EQ(half_bits_to_float(0x7C00), inf);
  EXPECT_EQ(half_bits_to_float(0xFC00), -inf);
}

TEST(QuantF16, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (1.0).
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the tie rounds up.
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  // Subnormal ties: 0.5 and 1.5 units of 2^-24 go to 0 and 2; 2.5 goes to 2.
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(float_to_half_bits(std::ldexp(5.0f, -25)), 0x0002);
  EXPECT_EQ(float_to_half_bits(-std::ldexp(5.0f, -25)), 0x8002);
  // Just above half the smallest subnormal rounds up to it.
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25) * 1.0000001f), 0x0001);
  // The largest subnormal plus half a unit rounds (to even) into the smallest normal.
  EXPECT_EQ(float_to_half_bits(std::ldexp(2047.0f, -25)), 0x0400);
  // Tiny floats and float subnormals flush to signed zero.
  EXPECT_EQ(float_to_half_bits(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half_bits(-bits_float(1u)), 0x8000);
}

TEST(QuantF16, DecodesKnownPatterns) {
  EXPECT_EQ(half_bits_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_bits_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_bits_to_float(0x8200), -std::ldexp(512.0f, -24));
  EXPECT_EQ(std::bit_cast<uint32_t>(half_bits_to_float(0x8000)), 0x80000000u);
}

TEST(QuantF16, EveryHalfRoundTripsExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_bits_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_EQ(h & 0x7C00, 0x7C00u);
      continue;
    }
    ASSERT_EQ(float_to_half_bits(f), h) << "half 0x" << std::hex << h;
  }
}

TEST(QuantF16, MidpointsBetweenNeighboursRoundToEven) {
  // For every pair of adjacent finite positive halves, the float midpoint is exact and must
  // round to whichever of the two has an even mantissa.
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    const double lo = half_bits_to_float(static_cast<uint16_t>(h));
    const double hi = half_bits_to_float(static_cast<uint16_t>(h + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);
    ASSERT_EQ(float_to_half_bits(mid), (h & 1) ? h + 1 : h) << "between 0x" << std::hex << h;
  }
}

}  // namespace
}  // namespace pb
