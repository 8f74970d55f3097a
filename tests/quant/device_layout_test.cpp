// engine/quant/device_layout.h: Q8_0 rows and Q6_K groups of 8 rows reordered as the kernels
// read them (quants first, then scales), every other format copied, and the conversion undone
// exactly.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/quant/blocks.h"
#include "engine/quant/device_layout.h"
#include "harness/errors.h"

namespace pb {
namespace {

std::vector<uint8_t> counting_bytes(size_t n) {
  std::vector<uint8_t> bytes(n);
  std::iota(bytes.begin(), bytes.end(), uint8_t{7});
  return bytes;
}

TEST(DeviceLayout, Q8_0RowsHoldTheirQuantsThenTheirScales) {
  const uint64_t rows = 3, cols = 256, blocks = cols / 32, row = row_bytes(WeightFormat::Q8_0, cols);
  const auto gguf = counting_bytes(rows * row);
  const auto device = device_rows(WeightFormat::Q8_0, cols, gguf);
  ASSERT_EQ(device.size(), gguf.size());
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint8_t* block = gguf.data() + r * row + b * sizeof(BlockQ8_0);
      const uint8_t* device_row = device.data() + r * row;
      for (uint64_t i = 0; i < 32; ++i) {
        ASSERT_EQ(device_row[32 * b + i], block[offsetof(BlockQ8_0, qs) + i]) << "row " << r << " block " << b;
      }
      EXPECT_EQ(device_row[cols + 2 * b], block[0]) << "row " << r << " block " << b;
      EXPECT_EQ(device_row[cols + 2 * b + 1], block[1]) << "row " << r << " block " << b;
      EXPECT_EQ(q8_0_device_scale_at(blocks, b), cols + 2 * b);
    }
  }
  EXPECT_EQ(row % 16, 0u) << "a row of 256 weights keeps the next row's quants on 16 bytes";
}

// 13 rows: a group of 8 and a tensor's short last group of 5.
TEST(DeviceLayout, Q6_KGroupsHoldTheirBodiesThenTheirScales) {
  const uint64_t cols = 512, blocks = 2, rows = 13, row = row_bytes(WeightFormat::Q6_K, cols);
  const auto gguf = counting_bytes(rows * row);
  const auto device = device_rows(WeightFormat::Q6_K, cols, gguf);
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t group_rows = r < 8 ? 8 : 5;
    const uint8_t* group = device.data() + (r / 8) * 8 * row;
    for (uint64_t b = 0; b < blocks; ++b) {
      const uint8_t* block = gguf.data() + r * row + b * sizeof(BlockQ6_K);
      const uint64_t body = ((r % 8) * blocks + b) * 208;
      ASSERT_EQ(q6_k_device_body_at(blocks, r % 8, b), body);
      for (uint64_t i = 0; i < 208; ++i) ASSERT_EQ(group[body + i], block[i]) << "row " << r << " block " << b;
      const uint64_t d = group_rows * blocks * 208 + ((r % 8) * blocks + b) * 2;
      ASSERT_EQ(q6_k_device_d_at(blocks, group_rows, r % 8, b), d);
      EXPECT_EQ(group[d], block[offsetof(BlockQ6_K, d)]) << "row " << r << " block " << b;
      EXPECT_EQ(group[d + 1], block[offsetof(BlockQ6_K, d) + 1]) << "row " << r << " block " << b;
      EXPECT_EQ((group - device.data() + body) % 16, 0u) << "every body starts on 16 bytes";
    }
  }
}

TEST(DeviceLayout, EveryFormatRoundTripsAndOnlyQ8_0AndQ6_KMove) {
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t cols = 512;
    const auto gguf = counting_bytes(21 * row_bytes(f, cols));
    const auto device = device_rows(f, cols, gguf);
    EXPECT_EQ(has_device_layout(f), device != gguf) << format_name(f);
    std::vector<uint8_t> back(device.size());
    device_to_gguf_rows(f, cols, device, back);
    EXPECT_EQ(back, gguf) << format_name(f);
  }
}

TEST(DeviceLayout, PartialRowsAreACallerError) {
  const auto gguf = counting_bytes(row_bytes(WeightFormat::Q8_0, 256) + 34);
  std::vector<uint8_t> out(gguf.size());
  EXPECT_THROW(gguf_to_device_rows(WeightFormat::Q8_0, 256, gguf, out), std::invalid_argument);
  const auto whole = counting_bytes(2 * row_bytes(WeightFormat::Q8_0, 256));
  std::vector<uint8_t> smaller(whole.size() - 16);
  EXPECT_THROW(gguf_to_device_rows(WeightFormat::Q8_0, 256, whole, smaller), std::invalid_argument);
  const auto q6_k = counting_bytes(2 * row_bytes(WeightFormat::Q6_K, 512) + 210);  // rows and a block
  std::vector<uint8_t> q6_k_out(q6_k.size());
  EXPECT_THROW(gguf_to_device_rows(WeightFormat::Q6_K, 512, q6_k, q6_k_out), std::invalid_argument);
}

TEST(DeviceLayout, RowsMustFitTheLayout) {
  EXPECT_EQ(device_cols_multiple(WeightFormat::Q8_0), 256u);
  EXPECT_EQ(device_cols_multiple(WeightFormat::Q4_K), 256u);
  EXPECT_EQ(device_cols_multiple(WeightFormat::F16), 1u);
  EXPECT_EQ(device_rows_multiple(WeightFormat::Q6_K), 8u);
  EXPECT_EQ(device_rows_multiple(WeightFormat::Q8_0), 1u);
  EXPECT_NO_THROW(require_device_cols(WeightFormat::Q8_0, 4096, "dmmv"));
  EXPECT_NO_THROW(require_device_cols(WeightFormat::F32, 96, "dmmv"));
  EXPECT_NO_THROW(require_device_cols(WeightFormat::Q6_K, 256, "dmmv"));
  try {
    require_device_cols(WeightFormat::Q8_0, 192, "matmul");
    ADD_FAILURE() << "192 columns of Q8_0 were accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    for (const char* part : {"matmul", "q8_0", "multiple of 256", "192"}) {
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' missing from: " << what;
    }
  }
  EXPECT_THROW(require_device_cols(WeightFormat::Q4_K, 0, "embed"), UsageError);
}

}  // namespace
}  // namespace pb
