// A bounds-checked little-endian reader over a byte span, internal to the GGUF parser.
// Every read checks the remaining length first; every failure is a GgufError that names the
// file, the section being parsed and the byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/gguf/gguf_error.h"
#include "engine/gguf/gguf_format.h"

namespace pb::gguf {

class ByteCursor {
 public:
  ByteCursor(std::span<const uint8_t> bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  uint64_t offset() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  // What is being parsed, for error messages: `header`, `metadata key "x"`, ...
  void set_section(std::string section) { section_ = std::move(section); }
  const std::string& section() const { return section_; }
  const std::string& source() const { return source_; }

  [[noreturn]] void fail_at(uint64_t offset, std::string detail) const {
    throw GgufError(source_, section_, offset, std::move(detail));
  }
  [[noreturn]] void fail(std::string detail) const { fail_at(pos_, std::move(detail)); }

  // Throws "file is truncated" when fewer than `n` bytes remain for `what`.
  void require(uint64_t n, std::string_view what) const {
    if (n <= remaining()) return;
    fail("file is truncated: " + std::string(what) + " needs " + std::to_string(n) +
         " bytes, but only " + std::to_string(remaining()) + " remain (file size " +
         std::to_string(size()) + ")");
  }

  template <class T>
  T read(std::string_view what) {
    require(sizeof(T), what);
    const T v = load_le<T>(bytes_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }

  std::span<const uint8_t> read_bytes(uint64_t n, std::string_view what) {
    require(n, what);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  // A GGUF string: uint64 length, then that many bytes. The length is checked against the
  // remaining bytes before the string is built, so a hostile length allocates nothing.
  std::string read_string(std::string_view what) {
    const uint64_t at = pos_;
    const uint64_t len = read<uint64_t>(std::string(what) + " length");
    if (len > remaining()) {
      fail_at(at, "length " + std::to_string(len) + " of " + std::string(what) + " exceeds the " +
                      std::to_string(remaining()) + " bytes left in the file (file size " +
                      std::to_string(size()) + ")");
    }
    auto b = read_bytes(len, what);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string source_;
  std::string section_;
  uint64_t pos_ = 0;
};

}  // namespace pb::gguf
