#include "tests/gguf/gguf_test_util.h"

#include <cstring>
#include <limits>
#include <memory>

namespace pb::gguf::test {

GgufFile parse_copy(const std::vector<uint8_t>& bytes) {
  return GgufFile::from_buffer(std::vector<uint8_t>(bytes.begin(), bytes.end()), "test.gguf");
}

void expect_gguf_error(const std::vector<uint8_t>& bytes,
                       std::initializer_list<std::string_view> fragments, size_t max_alloc) {
  // new[] of exactly the file's size: one byte more would hide an over-read from ASan.
  const size_t n = bytes.size();
  std::unique_ptr<uint8_t[]> copy(new uint8_t[n ? n : 1]);
  if (n) std::memcpy(copy.get(), bytes.data(), n);
  size_t largest = 0;
  try {
    AllocationProbe probe;
    try {
      GgufFile::from_memory({copy.get(), n}, "test.gguf");
    } catch (...) {
      largest = probe.largest();
      throw;
    }
    ADD_FAILURE() << "expected a GgufError, but the file parsed";
  } catch (const GgufError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("test.gguf: ", 0), 0u) << "message does not name the file: " << msg;
    for (std::string_view f : fragments) {
      EXPECT_NE(msg.find(f), std::string::npos) << "missing \"" << f << "\" in: " << msg;
    }
  }
  EXPECT_LE(largest, max_alloc) << "parsing allocated " << largest << " bytes at once";
}

// One pair of every value type, arrays of every element type, and a nested array.
void add_every_type(GgufWriter& w) {
  w.add("general.architecture", "llama");
  w.add("t.u8", uint8_t{200});
  w.add("t.i8", int8_t{-100});
  w.add("t.u16", uint16_t{60000});
  w.add("t.i16", int16_t{-30000});
  w.add("t.u32", uint32_t{4000000000u});
  w.add("t.i32", int32_t{-2000000000});
  w.add("t.f32", 3.25f);
  w.add("t.bool", true);
  w.add("t.string", std::string("h\xc3\xa9llo\0world", 12));  // UTF-8 and an embedded NUL
  w.add("t.empty_string", "");
  w.add("t.u64", uint64_t{1} << 63);
  w.add("t.i64", std::numeric_limits<int64_t>::min());
  w.add("t.f64", -1.0e300);
  w.add("a.u8", std::vector<uint8_t>{0, 1, 255});
  w.add("a.i8", std::vector<int8_t>{-128, 127});
  w.add("a.u16", std::vector<uint16_t>{1, 65535});
  w.add("a.i16", std::vector<int16_t>{-1, 1});
  w.add("a.u32", std::vector<uint32_t>{1, 2, 3});
  w.add("a.i32", std::vector<int32_t>{-5, 5});
  w.add("a.f32", std::vector<float>{0.5f, -0.0f, std::numeric_limits<float>::infinity()});
  w.add("a.bool", std::vector<bool>{true, false, true});
  w.add("a.string", std::vector<std::string>{"<s>", "</s>", "", "\xe2\x96\x81the"});
  w.add("a.u64", std::vector<uint64_t>{UINT64_MAX});
  w.add("a.i64", std::vector<int64_t>{-1});
  w.add("a.f64", std::vector<double>{1e-300});
  w.add("a.empty", std::vector<uint32_t>{});
  w.add("a.nested", std::vector<GgufArray>{GgufArray(std::vector<uint8_t>{1, 2}),
                                           GgufArray(std::vector<std::string>{"x"})});
}

}  // namespace pb::gguf::test
