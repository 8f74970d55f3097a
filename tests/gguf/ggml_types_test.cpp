#include "engine/gguf/ggml_types.h"

#include <gtest/gtest.h>

#include <set>

namespace pb::gguf {
namespace {

TEST(GgmlTypes, TableIsInIdOrderWithUniqueNames) {
  std::set<std::string_view> names;
  uint32_t previous = 0;
  for (const GgmlTypeInfo& t : ggml_type_table()) {
    const auto id = static_cast<uint32_t>(t.type);
    if (&t != ggml_type_table().data()) {
      EXPECT_GT(id, previous);
    }
    previous = id;
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
    EXPECT_EQ(find_ggml_type(id), &t);
    EXPECT_EQ(ggml_type_from_name(t.name), t.type);
  }
  EXPECT_EQ(ggml_type_table().size(), 32u);
}

// The numbers of ggml's type traits (ggml.c) and block structs (ggml-common.h).
TEST(GgmlTypes, IdsAndBlockGeometryMatchGgml) {
  struct Want {
    uint32_t id;
    const char* name;
    uint32_t elements, bytes;
  };
  const Want want[] = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
      {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
      {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
      {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
      {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
      {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
      {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},
      {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
      {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
  };
  for (const Want& w : want) {
    const GgmlTypeInfo* t = find_ggml_type(w.id);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->name, w.name);
    EXPECT_EQ(t->block_elements, w.elements) << w.name;
    EXPECT_EQ(t->block_bytes, w.bytes) << w.name;
  }
}

TEST(GgmlTypes, UnknownIdsAreReportedByNumber) {
  for (uint32_t id : {4u, 5u, 31u, 33u, 36u, 38u, 40u, 0xffffffffu}) {
    EXPECT_EQ(find_ggml_type(id), nullptr) << id;
  }
  EXPECT_EQ(ggml_type_name(40), "unknown ggml type 40");
  EXPECT_EQ(ggml_type_name(12), "Q4_K");
  EXPECT_FALSE(ggml_type_from_name("q4_k"));  // ggml's spelling only
}

TEST(GgmlTypes, TensorBytes) {
  const uint64_t q4k_dims[] = {4096, 14336};
  EXPECT_EQ(ggml_tensor_bytes(ggml_type_info(GgmlType::Q4_K), q4k_dims).bytes,
            4096ull / 256 * 144 * 14336);
  const uint64_t f32_dims[] = {3, 5, 7};
  EXPECT_EQ(ggml_tensor_bytes(ggml_type_info(GgmlType::F32), f32_dims).bytes, 3u * 5 * 7 * 4);
  EXPECT_EQ(ggml_tensor_bytes(ggml_type_info(GgmlType::F16), {}).bytes, 2u);  // a scalar
  const uint64_t empty[] = {32, 0, 9};
  EXPECT_EQ(ggml_tensor_bytes(ggml_type_info(GgmlType::Q8_0), empty).bytes, 0u);
}

TEST(GgmlTypes, PartialBlocksAndOverflowAreErrors) {
  const uint64_t partial[] = {100, 2};
  EXPECT_EQ(ggml_tensor_bytes(ggml_type_info(GgmlType::Q4_K), partial).error,
            "row length ne0 = 100 is not a multiple of the Q4_K block size 256");

  const uint64_t product[] = {1ull << 32, 1ull << 32};
  EXPECT_NE(ggml_element_count(product).error.find("overflows INT64_MAX"), std::string::npos);
  const uint64_t too_big[] = {1ull << 63};
  EXPECT_NE(ggml_element_count(too_big).error.find("ne0 = 9223372036854775808 exceeds"),
            std::string::npos);
  // Fits in int64 as elements, but not as bytes once multiplied by the block size.
  const uint64_t bytes_overflow[] = {1ull << 62};
  EXPECT_NE(ggml_tensor_bytes(ggml_type_info(GgmlType::F64), bytes_overflow)
                .error.find("overflows 64 bits"),
            std::string::npos);
  // A zero dimension anywhere makes the product zero, whatever the others are.
  const uint64_t with_zero[] = {1ull << 40, 1ull << 40, 0};
  EXPECT_EQ(ggml_element_count(with_zero).count, 0u);
}

}  // namespace
}  // namespace pb::gguf
