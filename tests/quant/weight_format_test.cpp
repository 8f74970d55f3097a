// Format names, GGML type ids, block sizes and the byte layout of the quantized blocks.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "engine/quant/blocks.h"
#include "engine/quant/weight_format.h"
#include "harness/errors.h"

namespace pb {
namespace {

TEST(QuantFormat, NamesRoundTripAndUnknownNamesAreRejected) {
  for (WeightFormat f : kAllWeightFormats) EXPECT_EQ(parse_weight_format(format_name(f)), f);
  EXPECT_EQ(format_name(WeightFormat::Q4_K), "q4_k");
  EXPECT_FALSE(parse_weight_format("q4_0").has_value());
  try {
    weight_format_from_name("q5_k");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'q5_k'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("q6_k"), std::string::npos) << e.what();
  }
}

TEST(QuantFormat, GgmlTypeIdsAndBlockSizesMatchGguf) {
  const uint32_t ids[] = {0, 1, 8, 12, 14};
  const uint32_t weights[] = {1, 1, 32, 256, 256};
  const uint32_t bytes[] = {4, 2, 34, 144, 210};
  for (size_t i = 0; i < 5; ++i) {
    const WeightFormat f = kAllWeightFormats[i];
    EXPECT_EQ(ggml_type_id(f), ids[i]);
    EXPECT_EQ(weight_format_from_ggml_type(ids[i]), f);
    EXPECT_EQ(block_weights(f), weights[i]);
    EXPECT_EQ(block_bytes(f), bytes[i]);
  }
  EXPECT_FALSE(weight_format_from_ggml_type(2).has_value());  // Q4_0: not supported
}

TEST(QuantFormat, RowAndTensorBytes) {
  EXPECT_EQ(row_bytes(WeightFormat::F32, 3), 12u);
  EXPECT_EQ(row_bytes(WeightFormat::F16, 3), 6u);
  EXPECT_EQ(row_bytes(WeightFormat::Q8_0, 4096), 128u * 34);
  EXPECT_EQ(row_bytes(WeightFormat::Q4_K, 5376), 21u * 144);
  EXPECT_EQ(row_bytes(WeightFormat::Q6_K, 4096), 16u * 210);
  EXPECT_EQ(tensor_bytes(WeightFormat::Q4_K, 262144, 5376), 262144ull * 21 * 144);
}

TEST(QuantFormat, PartialBlockRowIsAUsageErrorNamingTheFormat) {
  try {
    row_bytes(WeightFormat::Q4_K, 4000);
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("q4_k"), std::string::npos) << m;
    EXPECT_NE(m.find("256"), std::string::npos) << m;
    EXPECT_NE(m.find("4000"), std::string::npos) << m;
  }
  EXPECT_THROW(row_bytes(WeightFormat::Q8_0, 33), UsageError);
}

TEST(QuantFormat, BlockStructsHaveTheGgufLayout) {
  EXPECT_EQ(sizeof(BlockQ8_0), 34u);
  EXPECT_EQ(offsetof(BlockQ8_0, qs), 2u);
  EXPECT_EQ(sizeof(BlockQ4_K), 144u);
  EXPECT_EQ(offsetof(BlockQ4_K, dmin), 2u);
  EXPECT_EQ(offsetof(BlockQ4_K, scales), 4u);
  EXPECT_EQ(offsetof(BlockQ4_K, qs), 16u);
  EXPECT_EQ(sizeof(BlockQ6_K), 210u);
  EXPECT_EQ(offsetof(BlockQ6_K, qh), 128u);
  EXPECT_EQ(offsetof(BlockQ6_K, scales), 192u);
  EXPECT_EQ(offsetof(BlockQ6_K, d), 208u);
}

}  // namespace
}  // namespace pb
