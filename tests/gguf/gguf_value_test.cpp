#include "engine/gguf/gguf_value.h"

#include <gtest/gtest.h>

#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_metadata.h"

namespace pb::gguf {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const GgufError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GgufValue, VariantIndexIsTheOnDiskTypeId) {
  EXPECT_EQ(GgufValue(uint8_t{1}).type(), GgufType::UINT8);
  EXPECT_EQ(GgufValue(int8_t{1}).type(), GgufType::INT8);
  EXPECT_EQ(GgufValue(uint16_t{1}).type(), GgufType::UINT16);
  EXPECT_EQ(GgufValue(int16_t{1}).type(), GgufType::INT16);
  EXPECT_EQ(GgufValue(uint32_t{1}).type(), GgufType::UINT32);
  EXPECT_EQ(GgufValue(int32_t{1}).type(), GgufType::INT32);
  EXPECT_EQ(GgufValue(1.0f).type(), GgufType::FLOAT32);
  EXPECT_EQ(GgufValue(true).type(), GgufType::BOOL);
  EXPECT_EQ(GgufValue("text").type(), GgufType::STRING);
  EXPECT_EQ(GgufValue(std::vector<float>{1, 2}).type(), GgufType::ARRAY);
  EXPECT_EQ(GgufValue(uint64_t{1}).type(), GgufType::UINT64);
  EXPECT_EQ(GgufValue(int64_t{1}).type(), GgufType::INT64);
  EXPECT_EQ(GgufValue(1.0).type(), GgufType::FLOAT64);
  EXPECT_EQ(gguf_type_of<GgufArray>(), GgufType::ARRAY);
  EXPECT_EQ(gguf_type_name(13), "unknown value type 13");
}

TEST(GgufValue, TypedAccessorsNameTheExpectedAndActualType) {
  const GgufValue v(uint64_t{42});
  EXPECT_EQ(v.as<uint64_t>(), 42u);
  EXPECT_EQ(error_of([&] { (void)v.as<uint32_t>("llama.block_count"); }),
            "GGUF: llama.block_count: expected uint32, found uint64");
  const GgufValue a(std::vector<std::string>{"a", "b"});
  EXPECT_EQ(a.as_array().as<std::string>().size(), 2u);
  EXPECT_EQ(error_of([&] { (void)a.as_array().as<float>("scores"); }),
            "GGUF: scores: expected array of float32, found array of string");
}

TEST(GgufValue, AsUnsignedWidensAnyNonNegativeInteger) {
  EXPECT_EQ(GgufValue(uint8_t{7}).as_unsigned(), 7u);
  EXPECT_EQ(GgufValue(uint32_t{7}).as_unsigned(), 7u);
  EXPECT_EQ(GgufValue(int32_t{7}).as_unsigned(), 7u);
  EXPECT_NE(error_of([] { (void)GgufValue(int32_t{-1}).as_unsigned("n"); }).find("found int32 -1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              (void)GgufValue(true).as_unsigned("n");
            }).find("expected an unsigned integer, found bool"),
            std::string::npos);
}

TEST(GgufValue, ToStringIsShortAndEscaped) {
  EXPECT_EQ(GgufValue("a\"b\n").to_string(), "\"a\\\"b\\x0a\"");
  EXPECT_EQ(GgufValue(std::vector<int32_t>{1, 2, 3}).to_string(), "[1, 2, 3]");
  std::vector<uint32_t> many(100, 5);
  EXPECT_EQ(GgufValue(many).to_string(), "[5, 5, 5, 5, 5, 5, 5, 5, ... (100 elements)]");
  EXPECT_EQ(GgufValue(false).to_string(), "false");
}

TEST(GgufMetadata, LookupIterationAndErrors) {
  GgufMetadata md("model.gguf");
  EXPECT_EQ(md.insert("b.count", uint32_t{3}), nullptr);
  EXPECT_EQ(md.insert("a.name", "tiny", 40), nullptr);
  EXPECT_NE(md.insert("b.count", uint32_t{4}), nullptr);  // duplicate: the first stays
  EXPECT_EQ(md.get_u32("b.count"), 3u);
  EXPECT_EQ(md.get_string("a.name"), "tiny");
  EXPECT_EQ(md.find("missing"), nullptr);
  ASSERT_EQ(md.size(), 2u);
  EXPECT_EQ(md.entries()[0].key, "b.count");  // insertion (file) order
  EXPECT_EQ(md.entries()[1].key, "a.name");
  EXPECT_EQ(error_of([&] { (void)md.get_u64("b.count"); }),
            "model.gguf: metadata key \"b.count\": expected uint64, found uint32");
  EXPECT_EQ(error_of([&] { (void)md.get_string("missing"); }),
            "model.gguf: metadata key \"missing\": required key is missing");
  EXPECT_EQ(error_of([&] { (void)md.get_array<std::string>("a.name"); }),
            "model.gguf: metadata key \"a.name\", at byte 40: expected array of string, found "
            "string");
  EXPECT_EQ(error_of([&] { (void)md.get_u32("a.name"); }),
            "model.gguf: metadata key \"a.name\", at byte 40: expected uint32, found string");
  EXPECT_EQ(md.get_unsigned("b.count"), 3u);
}

}  // namespace
}  // namespace pb::gguf
