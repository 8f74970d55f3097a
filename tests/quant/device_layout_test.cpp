// engine/quant/device_layout.h: Q8_0 rows reordered as the kernels read them (quants first,
// then scales), every other format copied, and the conversion undone exactly.
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

TEST(DeviceLayout, EveryFormatRoundTripsAndOnlyQ8_0Moves) {
  for (WeightFormat f : kAllWeightFormats) {
    const uint64_t cols = 512;
    const auto gguf = counting_bytes(5 * row_bytes(f, cols));
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
}

TEST(DeviceLayout, Q8_0RowsMustBeAMultipleOf256) {
  EXPECT_EQ(device_cols_multiple(WeightFormat::Q8_0), 256u);
  EXPECT_EQ(device_cols_multiple(WeightFormat::Q4_K), 256u);
  EXPECT_EQ(device_cols_multiple(WeightFormat::F16), 1u);
  EXPECT_NO_THROW(require_device_cols(WeightFormat::Q8_0, 4096, "dmmv"));
  EXPECT_NO_THROW(require_device_cols(WeightFormat::F32, 96, "dmmv"));
  try {
    require_device_cols(WeightFormat::Q8_0, 192, "matmul");
    ADD_FAILURE() << "192 columns of Q8_0 were accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("matmul"), std::string::npos) << what;
    EXPECT_NE(what.find("q8_0"), std::string::npos) << what;
    EXPECT_NE(what.find("256"), std::string::npos) << what;
    EXPECT_NE(what.find("192"), std::string::npos) << what;
  }
  EXPECT_THROW(require_device_cols(WeightFormat::Q4_K, 0, "embed"), UsageError);
}

}  // namespace
}  // namespace pb
