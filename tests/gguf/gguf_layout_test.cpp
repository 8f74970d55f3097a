// Files spelled out byte by byte: they pin the exact on-disk layout that both the writer
// produces and the reader accepts.
#include <gtest/gtest.h>

#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/gguf/gguf_test_util.h"

namespace pb::gguf {
namespace {

using test::Bytes;

std::vector<uint8_t> f32_bytes(std::initializer_list<float> v) {
  Bytes b;
  for (float f : v) b.le(f);
  return b.data();
}

TEST(GgufLayout, HandAssembledFileMatchesWriterAndParses) {
  const std::vector<uint8_t> a = f32_bytes({1, 2, 3, 4});
  std::vector<uint8_t> b(34);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(0xa0 + i);

  Bytes want = Bytes::header(/*tensors=*/2, /*kvs=*/3);
  want.str("general.architecture").u32(8).str("llama");                       // string
  want.str("llama.block_count").u32(4).u32(2);                                // uint32
  want.str("tokenizer.ggml.tokens").u32(9).u32(8).u64(2).str("a").str("bc");  // array of string
  want.str("a").u32(2).u64(4).u64(1).u32(0).u64(0);                           // F32 [4, 1] at 0
  want.str("b").u32(1).u64(32).u32(8).u64(32);                                // Q8_0 [32] at 32
  const size_t infos_end = want.size();
  want.pad_to(32);
  const size_t data_start = want.size();
  for (uint8_t x : a) want.u8(x);
  want.pad_to(32);
  for (uint8_t x : b) want.u8(x);
  want.pad_to(32);  // the writer pads after the last tensor too, as ggml does
  ASSERT_EQ(infos_end, 24u + (8 + 20 + 4 + 8 + 5) + (8 + 17 + 4 + 4) +
                           (8 + 21 + 4 + 4 + 8 + 9 + 10) + (8 + 1 + 4 + 16 + 4 + 8) +
                           (8 + 1 + 4 + 8 + 4 + 8));
  ASSERT_EQ(data_start, 256u);

  GgufWriter w;
  w.add("general.architecture", "llama");
  w.add("llama.block_count", uint32_t{2});
  w.add("tokenizer.ggml.tokens", std::vector<std::string>{"a", "bc"});
  w.add_tensor("a", {4, 1}, GgmlType::F32, a);
  w.add_tensor("b", {32}, GgmlType::Q8_0, b);
  EXPECT_EQ(w.to_bytes(), want.data());
  EXPECT_EQ(w.file_size(), want.size());

  const GgufFile f = test::parse_copy(want);
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.alignment(), 32u);
  EXPECT_EQ(f.data_offset(), data_start);
  ASSERT_EQ(f.metadata().size(), 3u);
  EXPECT_EQ(f.metadata().entries()[1].key, "llama.block_count");
  EXPECT_EQ(f.metadata().entries()[1].offset, 24u + 8 + 20 + 4 + 8 + 5);
  EXPECT_EQ(f.get_u32("llama.block_count"), 2u);
  EXPECT_EQ(f.get_array<std::string>("tokenizer.ggml.tokens"),
            (std::vector<std::string>{"a", "bc"}));
  ASSERT_EQ(f.tensors().size(), 2u);
  EXPECT_EQ(f.tensors()[0].dims, (std::vector<uint64_t>{4, 1}));
  EXPECT_EQ(f.tensors()[1].file_offset, data_start + 32);
  const auto data_a = f.tensor_data(f.tensors()[0]);
  EXPECT_EQ(std::vector<uint8_t>(data_a.begin(), data_a.end()), a);
  const auto data_b = f.tensor_data(f.tensor("b"));
  EXPECT_EQ(std::vector<uint8_t>(data_b.begin(), data_b.end()), b);
}

// A non-default alignment is written as general.alignment (uint32), first among the pairs.
TEST(GgufLayout, NonDefaultAlignmentKeyComesFirst) {
  Bytes want = Bytes::header(1, 2);
  want.str("general.alignment").u32(4).u32(16);
  want.str("x").u32(0).u8(7);
  want.str("t").u32(1).u64(2).u32(1).u64(0);  // F16 [2] at 0
  want.pad_to(16).u32(0x3c003c00).pad_to(16);

  GgufWriter w(16);
  w.add("x", uint8_t{7});
  w.add_tensor("t", {2}, GgmlType::F16, std::vector<uint8_t>{0x00, 0x3c, 0x00, 0x3c});
  EXPECT_EQ(w.to_bytes(), want.data());
  const GgufFile f = test::parse_copy(want);
  EXPECT_EQ(f.alignment(), 16u);
  EXPECT_EQ(f.data_offset() % 16, 0u);
}

// A file with no tensors needs no data section, not even its padding.
TEST(GgufLayout, EmptyFileAndNoTensors) {
  const GgufFile empty = test::parse_copy(Bytes::header(0, 0));
  EXPECT_TRUE(empty.metadata().empty());
  EXPECT_TRUE(empty.tensors().empty());
  Bytes kv = Bytes::header(0, 1);
  kv.str("k").u32(7).u8(1);  // no padding after the last pair
  EXPECT_TRUE(test::parse_copy(kv).get_bool("k"));
}

// Zero dimensions make a scalar (one element), as ggml treats missing dims as 1.
TEST(GgufLayout, ZeroDimsIsAScalarAndEmptyTensorsTakeNoBytes) {
  Bytes b = Bytes::header(2, 0);
  b.str("scalar").u32(0).u32(0).u64(0);
  b.str("empty").u32(2).u64(0).u64(5).u32(0).u64(0);  // same offset: it occupies no bytes
  b.pad_to(32).le(1.5f);
  const GgufFile f = test::parse_copy(b);
  EXPECT_EQ(f.tensors()[0].element_count, 1u);
  EXPECT_EQ(f.tensors()[0].byte_size, 4u);
  EXPECT_EQ(f.tensors()[1].byte_size, 0u);
  EXPECT_TRUE(f.tensor_data(f.tensors()[1]).empty());
}

}  // namespace
}  // namespace pb::gguf
