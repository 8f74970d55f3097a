// Helpers for the GGUF tests: a little-endian byte builder for hand-assembled files, a matcher
// for GgufError messages, and a probe of the largest heap allocation made while parsing.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_reader.h"
#include "engine/gguf/gguf_writer.h"

namespace pb::gguf::test {

// Appends little-endian fields, so a test spells a file out byte by byte.
class Bytes {
 public:
  template <class T>
  Bytes& le(T v) {
    return append(&v, sizeof(T));  // the tests run on little-endian hosts (x86-64, arm64)
  }
  Bytes& u8(uint8_t v) { return le(v); }
  Bytes& u32(uint32_t v) { return le(v); }
  Bytes& u64(uint64_t v) { return le(v); }
  Bytes& raw(std::string_view s) { return append(s.data(), s.size()); }
  Bytes& raw(std::initializer_list<uint8_t> b) { return append(b.begin(), b.size()); }
  Bytes& str(std::string_view s) { return u64(s.size()).raw(s); }  // a GGUF string
  Bytes& zeros(size_t n) {
    data_.resize(data_.size() + n, 0);
    return *this;
  }
  Bytes& pad_to(size_t alignment) {
    while (data_.size() % alignment) data_.push_back(0);
    return *this;
  }
  // "GGUF", version, tensor_count, metadata_kv_count.
  static Bytes header(uint64_t tensors, uint64_t kvs, uint32_t version = 3) {
    Bytes b;
    b.raw("GGUF").u32(version).u64(tensors).u64(kvs);
    return b;
  }

  size_t size() const { return data_.size(); }
  const std::vector<uint8_t>& data() const { return data_; }
  operator const std::vector<uint8_t>&() const { return data_; }

 private:
  // resize + memcpy rather than insert: GCC 12 warns falsely on inserting into an empty vector.
  Bytes& append(const void* p, size_t n) {
    const size_t at = data_.size();
    data_.resize(at + n);
    if (n) std::memcpy(data_.data() + at, p, n);
    return *this;
  }

  std::vector<uint8_t> data_;
};

// Tracks the largest single operator-new request made on this thread while armed
// (alloc_probe.cpp replaces the global operator new for the test binary).
class AllocationProbe {
 public:
  AllocationProbe();
  ~AllocationProbe();
  size_t largest() const;
};

// Parses `bytes` from an exactly-sized heap copy (so ASan sees any read past the end),
// expects a GgufError whose message contains every fragment, and checks that no single
// allocation exceeded `max_alloc` bytes while parsing.
void expect_gguf_error(const std::vector<uint8_t>& bytes,
                       std::initializer_list<std::string_view> fragments,
                       size_t max_alloc = 64 * 1024);

// Parses `bytes` from an exactly-sized copy and returns the file (which owns the copy).
GgufFile parse_copy(const std::vector<uint8_t>& bytes);

// One metadata pair of every value type, arrays of every element type, a nested array.
void add_every_type(GgufWriter& w);

}  // namespace pb::gguf::test
