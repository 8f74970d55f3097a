// Dequantization of hand-built blocks against hand-computed values: the Q4_K scale/min packing
// of sub-blocks 0-3 and 4-7, its nibble order, and Q6_K's ql/qh interleave. The full-block
// checks re-derive every weight with ggml's loop structure, written independently of blocks.h.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/quant/blocks.h"
#include "engine/quant/quantize.h"
#include "harness/errors.h"

namespace pb {
namespace {

template <typename Block>
std::vector<float> dequantize_one(WeightFormat format, const Block& block, size_t weights) {
  std::vector<uint8_t> bytes(sizeof(Block));
  std::memcpy(bytes.data(), &block, sizeof(Block));
  std::vector<float> out(weights);
  dequantize_row(format, bytes, out);
  return out;
}

TEST(QuantDequant, F32AndF16) {
  const float f[] = {1.5f, -0.25f};
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), f, 8);
  std::vector<float> out(2);
  dequantize_row(WeightFormat::F32, bytes, out);
  EXPECT_EQ(out, (std::vector<float>{1.5f, -0.25f}));
  const std::vector<uint8_t> halves = {0x00, 0x3C, 0x01, 0x80};  // 1.0, -2^-24
  dequantize_row(WeightFormat::F16, halves, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -5.9604644775390625e-08f);
}

TEST(QuantDequant, Q8_0HandBuilt) {
  BlockQ8_0 b{};
  b.d = 0x3800;  // 0.5
  for (int i = 0; i < 32; ++i) b.qs[i] = static_cast<int8_t>(i - 16);
  b.qs[31] = -127;
  const auto y = dequantize_one(WeightFormat::Q8_0, b, 32);
  EXPECT_EQ(y[0], -8.0f);
  EXPECT_EQ(y[16], 0.0f);
  EXPECT_EQ(y[17], 0.5f);
  EXPECT_EQ(y[30], 7.0f);
  EXPECT_EQ(y[31], -63.5f);
}

// Sub-block scales {1, 2, 3, 4, 17, 34, 51, 63} and mins {5, 6, 7, 8, 20, 40, 60, 33}, packed
// by hand: bytes 0-3 = sc[k] | (sc[k+4] >> 4) << 6, bytes 4-7 = m[k] | (m[k+4] >> 4) << 6,
// bytes 8-11 = (sc[k+4] & 15) | (m[k+4] & 15) << 4.
constexpr uint8_t kQ4KScales[12] = {65, 130, 195, 196, 69, 134, 199, 136, 65, 130, 195, 31};
constexpr uint8_t kScale[8] = {1, 2, 3, 4, 17, 34, 51, 63};
constexpr uint8_t kMin[8] = {5, 6, 7, 8, 20, 40, 60, 33};

BlockQ4_K hand_q4_k() {
  BlockQ4_K b{};
  b.d = 0x3C00;     // 1.0
  b.dmin = 0x3800;  // 0.5
  std::memcpy(b.scales, kQ4KScales, 12);
  for (int p = 0; p < 128; ++p) b.qs[p] = static_cast<uint8_t>(p * 7 + 3);
  return b;
}

TEST(QuantDequant, Q4_KScaleMinPacking) {
  for (int j = 0; j < 8; ++j) {
    const ScaleMin sm = q4_k_scale_min(kQ4KScales, j);
    EXPECT_EQ(sm.scale, kScale[j]) << "sub-block " << j;
    EXPECT_EQ(sm.min, kMin[j]) << "sub-block " << j;
  }
  for (int order = 0; order < 2; ++order) {  // the setter must not depend on the order
    uint8_t packed[12] = {};
    for (int k = 0; k < 8; ++k) {
      const int j = order == 0 ? k : 7 - k;
      q4_k_set_scale_min(packed, j, {kScale[j], kMin[j]});
    }
    EXPECT_EQ(std::memcmp(packed, kQ4KScales, 12), 0) << "order " << order;
  }
}

TEST(QuantDequant, Q4_KHandComputedWeights) {
  const auto y = dequantize_one(WeightFormat::Q4_K, hand_q4_k(), 256);
  // w = 1.0 * sc * q - 0.5 * m, with q the nibble of byte p = 32 * (i / 64) + i % 32.
  EXPECT_EQ(y[0], 0.5f);      // p 0 = 3, low: 1*3 - 2.5
  EXPECT_EQ(y[100], 56.0f);   // p 36 = 255, high: sub-block 3, 4*15 - 4
  EXPECT_EQ(y[130], 7.0f);    // p 66 = 0xD1, low: sub-block 4, 17*1 - 10
  EXPECT_EQ(y[200], 531.0f);  // p 104 = 0xDB, low: sub-block 6, 51*11 - 30
  EXPECT_EQ(y[255], 424.5f);  // p 127 = 0x7C, high: sub-block 7, 63*7 - 16.5
  // Every weight, in ggml's loop order: each 64-weight group reads 32 bytes, low nibbles
  // first, then high nibbles.
  const BlockQ4_K b = hand_q4_k();
  for (int g = 0; g < 4; ++g) {
    for (int l = 0; l < 32; ++l) {
      const uint8_t byte = b.qs[32 * g + l];
      EXPECT_EQ(y[64 * g + l], kScale[2 * g] * (byte & 0xF) - 0.5f * kMin[2 * g]);
      EXPECT_EQ(y[64 * g + 32 + l], kScale[2 * g + 1] * (byte >> 4) - 0.5f * kMin[2 * g + 1]);
    }
  }
}

BlockQ6_K hand_q6_k() {
  BlockQ6_K b{};
  for (int p = 0; p < 128; ++p) b.ql[p] = static_cast<uint8_t>(p * 13);
  for (int p = 0; p < 64; ++p) b.qh[p] = static_cast<uint8_t>(p * 29 + 5);
  for (int k = 0; k < 16; ++k) b.scales[k] = static_cast<int8_t>(k - 8);
  b.d = 0x3400;  // 0.25
  return b;
}

TEST(QuantDequant, Q6_KHandComputedWeights) {
  const auto y = dequantize_one(WeightFormat::Q6_K, hand_q6_k(), 256);
  // w = 0.25 * scales[i / 16] * (q - 32).
  EXPECT_EQ(y[0], 32.0f);      // ql[0] = 0 low, qh[0] = 5 bits 0-1 = 1: q 16; scale -8
  EXPECT_EQ(y[37], 22.5f);     // ql[37] = 0xE1 low, qh[5] = 150 bits 2-3 = 1: q 17; scale -6
  EXPECT_EQ(y[200], -22.0f);   // ql[72] = 0xA8 high, qh[40] = 141 bits 4-5 = 0: q 10; scale 4
  EXPECT_EQ(y[255], -43.75f);  // ql[127] = 0x73 high, qh[63] = 40 bits 6-7 = 0: q 7; scale 7
  // Every weight, in ggml's loop order.
  const BlockQ6_K b = hand_q6_k();
  for (int half = 0; half < 2; ++half) {
    const uint8_t* ql = b.ql + 64 * half;
    const uint8_t* qh = b.qh + 32 * half;
    const int8_t* sc = b.scales + 8 * half;
    for (int l = 0; l < 32; ++l) {
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      const int is = l / 16;
      const float* out = y.data() + 128 * half;
      EXPECT_EQ(out[l], 0.25f * sc[is] * q1);
      EXPECT_EQ(out[l + 32], 0.25f * sc[is + 2] * q2);
      EXPECT_EQ(out[l + 64], 0.25f * sc[is + 4] * q3);
      EXPECT_EQ(out[l + 96], 0.25f * sc[is + 6] * q4);
    }
  }
}

TEST(QuantDequant, Q6_KQuantSetterInvertsTheGetter) {
  BlockQ6_K b = hand_q6_k();
  for (int i = 0; i < 256; ++i) q6_k_set_quant(b, i, static_cast<uint8_t>((i * 37 + 11) & 63));
  for (int i = 0; i < 256; ++i) EXPECT_EQ(q6_k_quant(b, i), (i * 37 + 11) & 63) << i;
}

TEST(QuantDequant, SizeMismatchIsAUsageError) {
  std::vector<uint8_t> bytes(100);
  std::vector<float> out(32);
  EXPECT_THROW(dequantize_row(WeightFormat::Q8_0, bytes, out), UsageError);
  std::vector<uint8_t> q(34);
  EXPECT_THROW(quantize_row(WeightFormat::Q8_0, std::vector<float>(64), q), UsageError);
}

}  // namespace
}  // namespace pb
