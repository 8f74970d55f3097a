// Malformed and hostile inputs: each gives a GgufError that names the file, the section and
// the byte offset, with no crash (the sanitizer build runs these) and no large allocation.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/gguf/gguf_test_util.h"

namespace pb::gguf {
namespace {

using test::Bytes;
using test::expect_gguf_error;

constexpr uint64_t k2p60 = uint64_t{1} << 60;
constexpr uint64_t k2p62 = uint64_t{1} << 62;

// A small valid file of every metadata type and a few tensors; its last tensor ends the file
// (no trailing padding), so every strict prefix is truncated.
std::vector<uint8_t> small_valid_file() {
  GgufWriter w;
  test::add_every_type(w);
  w.add_tensor("a", {4}, GgmlType::F32, std::vector<uint8_t>(16, 1));
  w.add_tensor("b", {0, 3}, GgmlType::F16, std::vector<uint8_t>{});
  w.add_tensor("c", {32}, GgmlType::Q8_0, std::vector<uint8_t>(34, 2));
  std::vector<uint8_t> bytes = w.to_bytes();
  const GgufFile f = test::parse_copy(bytes);
  const GgufTensorInfo& last = f.tensor("c");
  bytes.resize(last.file_offset + *last.byte_size);
  return bytes;
}

// The probe behind the "no huge allocation" checks below really sees allocations.
TEST(GgufMalformed, AllocationProbeSeesAllocations) {
  test::AllocationProbe probe;
  std::vector<char> big(1 << 20);
  EXPECT_GE(probe.largest(), big.size());
}

TEST(GgufMalformed, TruncationAtEveryByteOffset) {
  const std::vector<uint8_t> full = small_valid_file();
  ASSERT_GT(full.size(), 500u);
  for (size_t n = 0; n < full.size(); ++n) {
    SCOPED_TRACE("prefix of " + std::to_string(n) + " bytes");
    const std::vector<uint8_t> prefix(full.begin(), full.begin() + static_cast<ptrdiff_t>(n));
    expect_gguf_error(prefix, {"test.gguf: "});
    if (HasFailure()) break;  // one prefix's report is enough
  }
  EXPECT_EQ(test::parse_copy(full).tensors().size(), 3u);
  // The kinds of message a truncation gives: counts the rest cannot hold, a field cut short,
  // tensor data cut short.
  expect_gguf_error(
      {full.begin(), full.begin() + 30},
      {"header, at byte 16: metadata_kv_count 28 is impossible", "(is the file truncated?)"});
  const uint8_t info_a[] = {1, 0, 0, 0, 0, 0, 0, 0, 'a'};
  const auto at = static_cast<size_t>(
      std::search(full.begin(), full.end(), std::begin(info_a), std::end(info_a)) - full.begin());
  expect_gguf_error({full.begin(), full.begin() + static_cast<ptrdiff_t>(at + 3)},
                    {"tensor info 0, at byte " + std::to_string(at) +
                     ": file is truncated: name length needs 8 bytes, but only 3 remain"});
  expect_gguf_error({full.begin(), full.end() - 1},
                    {"tensor info 2 \"c\"", "lies past the end of the file"});
}

// Every byte flipped to a few values: each result parses or is a GgufError, never anything else.
TEST(GgufMalformed, SingleByteCorruptionNeverCrashes) {
  const std::vector<uint8_t> full = small_valid_file();
  size_t rejected = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0xff}, static_cast<uint8_t>(full[i] + 1)}) {
      std::vector<uint8_t> bad = full;
      bad[i] = v;
      try {
        (void)GgufFile::from_memory(bad, "test.gguf");
      } catch (const GgufError&) {
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, full.size());
}

TEST(GgufMalformed, WrongMagic) {
  expect_gguf_error(Bytes().raw("GGUX").u32(3).u64(0).u64(0),
                    {"test.gguf: header, at byte 0: not a GGUF file: expected magic \"GGUF\" "
                     "(47 47 55 46), found 47 47 55 58"});
  expect_gguf_error(Bytes().raw("GG"), {"header, at byte 0: file is truncated: magic needs 4"});
}

TEST(GgufMalformed, UnsupportedVersions) {
  for (uint32_t v : {1u, 2u}) {
    expect_gguf_error(Bytes::header(0, 0, v),
                      {"header, at byte 4: unsupported GGUF version " + std::to_string(v) +
                       "; phasebench reads version 3 only (versions 1 and 2 are obsolete"});
  }
  expect_gguf_error(Bytes::header(0, 0, 4),
                    {"header, at byte 4: unsupported GGUF version 4; phasebench reads version 3 "
                     "only"});
  expect_gguf_error(Bytes::header(0, 0, 0x03000000), {"looks like a big-endian file"});
}

TEST(GgufMalformed, AbsurdCounts) {
  expect_gguf_error(Bytes::header(k2p60, 0),
                    {"header, at byte 8: tensor_count 1152921504606846976 is impossible: the "
                     "bytes after the header hold at most 0 tensor infos"});
  expect_gguf_error(Bytes::header(0, k2p60).zeros(40),
                    {"header, at byte 16: metadata_kv_count 1152921504606846976 is impossible: "
                     "the 40 bytes after the header hold at most 3 key/value pairs"});
  expect_gguf_error(Bytes::header(UINT64_MAX, UINT64_MAX), {"is impossible"});
}

TEST(GgufMalformed, HugeStringLengths) {
  expect_gguf_error(Bytes::header(0, 1).u64(k2p62).raw("key and more"),
                    {"metadata pair 0, at byte 24: length 4611686018427387904 of key exceeds "
                     "the 12 bytes left in the file"});
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(8).u64(k2p62).raw("abc"),
                    {"metadata key \"k\", at byte 37: length 4611686018427387904 of string "
                     "exceeds the 3 bytes left"});
  expect_gguf_error(Bytes::header(1, 0).u64(UINT64_MAX).zeros(24),
                    {"tensor info 0, at byte 24: length 18446744073709551615 of name exceeds"});
}

TEST(GgufMalformed, HugeArrayCounts) {
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(9).u32(4).u64(k2p62).zeros(8),
                    {"metadata key \"k\", at byte 41: array length 4611686018427387904 is "
                     "impossible: each uint32 element takes at least 4 bytes, and only 8 bytes "
                     "remain"});
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(9).u32(8).u64(k2p62).zeros(64),
                    {"each string element takes at least 8 bytes"});
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(9).u32(9).u64(k2p62).zeros(64),
                    {"each array element takes at least 12 bytes"});
  // A plausible count whose last string is absurd: fails on the data, not on allocation.
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(9).u32(8).u64(100).zeros(99 * 8).u64(k2p62),
                    {"length 4611686018427387904 of string exceeds the 0 bytes left"});
}

TEST(GgufMalformed, TensorShapes) {
  expect_gguf_error(Bytes::header(1, 0).str("t").u32(1000).zeros(100),
                    {"tensor info 0 \"t\", at byte 33: n_dims 1000 exceeds the maximum of 8"});
  expect_gguf_error(
      Bytes::header(1, 0).str("t").u32(2).u64(1ull << 32).u64(1ull << 32).u32(0).u64(0),
      {"tensor info 0 \"t\", at byte 37: the element count (product of the dimensions) "
       "overflows INT64_MAX"});
  expect_gguf_error(Bytes::header(1, 0).str("t").u32(1).u64(UINT64_MAX).u32(0).u64(0),
                    {"dimension ne0 = 18446744073709551615 exceeds INT64_MAX"});
  expect_gguf_error(Bytes::header(1, 0).str("t").u32(1).u64(100).u32(12).u64(0),
                    {"tensor info 0 \"t\", at byte 37: row length ne0 = 100 is not a multiple "
                     "of the Q4_K block size 256"});
  // Elements fit in int64, bytes do not.
  expect_gguf_error(Bytes::header(1, 0).str("t").u32(1).u64(1ull << 62).u32(28).u64(0),
                    {"overflows 64 bits"});
}

// One F32 tensor of 4 elements (16 bytes) at `offset`; the data section starts at 64.
Bytes one_tensor(uint64_t offset, size_t data_bytes) {
  Bytes b = Bytes::header(1, 0);
  b.str("t").u32(1).u64(4).u32(0).u64(offset);  // the offset field is at byte 49
  b.pad_to(32).zeros(data_bytes);
  return b;
}

TEST(GgufMalformed, TensorDataOutsideTheFile) {
  ASSERT_EQ(one_tensor(0, 16).size(), 80u);
  EXPECT_NO_THROW(test::parse_copy(one_tensor(0, 16)));
  expect_gguf_error(one_tensor(64, 16),
                    {"tensor info 0 \"t\", at byte 49: data offset 64 (file byte 64 + offset) "
                     "with 16 bytes of data lies past the end of the file (size 80)"});
  expect_gguf_error(one_tensor(0, 8), {"lies past the end of the file (size 72)"});
  expect_gguf_error(one_tensor(uint64_t{1} << 63, 16), {"lies past the end of the file"});
  expect_gguf_error(one_tensor(UINT64_MAX - 31, 16), {"lies past the end of the file"});
}

TEST(GgufMalformed, MisalignedOffset) {
  expect_gguf_error(one_tensor(16, 32),
                    {"tensor info 0 \"t\", at byte 49: data offset 16 is not a multiple of the "
                     "alignment 32"});
}

TEST(GgufMalformed, OverlappingTensors) {
  Bytes b = Bytes::header(2, 0);
  b.str("a").u32(1).u64(16).u32(0).u64(0);   // bytes [0, 64) of the data section
  b.str("b").u32(1).u64(16).u32(0).u64(32);  // bytes [32, 96): overlaps a
  b.pad_to(32).zeros(96);
  expect_gguf_error(b, {"tensor info 1 \"b\", at byte 82: data bytes [128, 192) overlap those "
                        "of tensor 0 \"a\" [96, 160)"});
}

TEST(GgufMalformed, DuplicateNames) {
  Bytes t = Bytes::header(2, 0);
  t.str("a").u32(1).u64(8).u32(0).u64(0);
  t.str("a").u32(1).u64(8).u32(0).u64(32);
  t.pad_to(32).zeros(64);
  expect_gguf_error(t, {"tensor info 1 \"a\", at byte 57: duplicate tensor name (first used by "
                        "tensor info 0)"});

  expect_gguf_error(Bytes::header(0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(2),
                    {"metadata key \"k\", at byte 41: duplicate key (first defined at byte 24)"});
}

TEST(GgufMalformed, HostileNamesAreEscapedAndShortenedInMessages) {
  const std::string key = "a\nb\"" + std::string(200, 'x');  // 204 bytes
  Bytes b = Bytes::header(0, 2);
  b.str(key).u32(4).u32(1).str(key).u32(4).u32(1);
  expect_gguf_error(b, {"metadata key \"a\\x0ab\\x22xxx", "xxx\"... (204 bytes), at byte 244: "
                        "duplicate key (first defined at byte 24)"});
}

TEST(GgufMalformed, UnknownValueTypes) {
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(13).zeros(8),
                    {"metadata key \"k\", at byte 33: unknown value type 13 (valid types are "
                     "0..12"});
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(9).u32(77).u64(1).zeros(8),
                    {"metadata key \"k\", at byte 37: unknown array element type 77"});
  expect_gguf_error(Bytes::header(0, 1).str("k").u32(7).u8(2),
                    {"metadata key \"k\", at byte 37: bool value must be 0 or 1, found 2"});
}

TEST(GgufMalformed, NestingDepth) {
  auto nested = [](int levels) {
    Bytes b = Bytes::header(0, 1).str("k").u32(9);
    for (int i = 1; i < levels; ++i) b.u32(9).u64(1);  // an array holding one array
    b.u32(0).u64(0);                                   // the innermost: empty uint8 array
    return b;
  };
  EXPECT_NO_THROW(test::parse_copy(nested(8)));
  expect_gguf_error(nested(9), {"metadata key \"k\"", "arrays are nested more than 8 levels"});
  expect_gguf_error(nested(100000), {"arrays are nested more than 8 levels deep"});
}

TEST(GgufMalformed, BadAlignment) {
  auto with_alignment = [](uint32_t type, uint64_t value) {
    Bytes b = Bytes::header(0, 1).str("general.alignment").u32(type);
    return type == 10 ? b.u64(value) : b.u32(static_cast<uint32_t>(value));
  };
  expect_gguf_error(with_alignment(10, 64),
                    {"metadata key \"general.alignment\", at byte 24: expected uint32, found "
                     "uint64"});
  expect_gguf_error(with_alignment(4, 0), {"alignment must be a non-zero power of two, found 0"});
  expect_gguf_error(with_alignment(4, 48), {"alignment must be a non-zero power of two, found 48"});
  EXPECT_EQ(test::parse_copy(with_alignment(4, 64)).alignment(), 64u);
}

// Decision: a ggml type id phasebench does not know does not stop the file from opening
// (its metadata and other tensors are usable); the tensor's size is unknown, so taking its
// data is the error. Its offset is still checked (aligned, first byte inside the file).
TEST(GgufMalformed, UnknownGgmlTypeFailsOnlyWhenItsSizeIsNeeded) {
  Bytes b = Bytes::header(2, 0);
  b.str("new").u32(1).u64(256).u32(99).u64(0);
  b.str("old").u32(1).u64(4).u32(0).u64(64);
  b.pad_to(32).zeros(80);
  const GgufFile f = test::parse_copy(b);
  const GgufTensorInfo& t = f.tensor("new");
  EXPECT_EQ(t.type_info(), nullptr);
  EXPECT_EQ(t.type_name(), "unknown ggml type 99");
  EXPECT_FALSE(t.byte_size.has_value());
  EXPECT_EQ(f.tensor_data(f.tensor("old")).size(), 16u);
  try {
    (void)f.tensor_data(t);
    FAIL() << "took the data of a tensor of unknown size";
  } catch (const GgufError& e) {
    EXPECT_EQ(std::string(e.what()),
              "test.gguf: tensor info 0 \"new\", at byte 96: its ggml type 99 is unknown to "
              "phasebench, so the size of its data is unknown");
  }

  Bytes past = Bytes::header(1, 0);
  past.str("new").u32(1).u64(256).u32(99).u64(64);
  past.pad_to(32).zeros(64);
  expect_gguf_error(past, {"data offset 64", "with 1 bytes of data lies past the end"});
  Bytes shared = Bytes::header(2, 0);  // another tensor starting at its first byte overlaps
  shared.str("new").u32(1).u64(256).u32(99).u64(0);
  shared.str("old").u32(1).u64(4).u32(0).u64(0);
  shared.pad_to(32).zeros(64);
  expect_gguf_error(shared, {"overlap those of tensor 0 \"new\""});
}

}  // namespace
}  // namespace pb::gguf
