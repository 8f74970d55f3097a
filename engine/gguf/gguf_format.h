// Constants and small helpers of the GGUF v3 layout, shared by the reader and the writer
// (ggml's docs/gguf.md is the specification). All multi-byte fields are little-endian.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace pb::gguf {

inline constexpr std::array<uint8_t, 4> kMagic = {'G', 'G', 'U', 'F'};
inline constexpr uint32_t kVersion = 3;
inline constexpr uint32_t kDefaultAlignment = 32;
inline constexpr const char* kAlignmentKey = "general.alignment";

// ggml itself uses 4 dimensions; the format leaves room for more, so up to 8 are accepted.
// A larger count is a corrupt or hostile file.
inline constexpr uint32_t kMaxDims = 8;

// Arrays may nest (the spec allows arrays of arrays). Each level costs only 12 bytes, so a
// small file could otherwise recurse deep enough to overflow the stack.
inline constexpr int kMaxArrayDepth = 8;

// The fewest bytes a serialized item can take. Counts read from the file are checked against
// these before anything is allocated, so a hostile count can never allocate more than a small
// multiple of the file's size.
inline constexpr uint64_t kHeaderBytes = 4 + 4 + 8 + 8;
inline constexpr uint64_t kMinKeyValueBytes = 8 + 4 + 1;        // empty key, type, 1-byte value
inline constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, 0 dims, type, offset

// `value` rounded up to a multiple of `alignment` (non-zero); nullopt if that overflows.
inline std::optional<uint64_t> align_up(uint64_t value, uint64_t alignment) {
  const uint64_t rem = value % alignment;
  if (rem == 0) return value;
  const uint64_t pad = alignment - rem;
  if (value > UINT64_MAX - pad) return std::nullopt;
  return value + pad;
}

// Little-endian load/store of an arithmetic value; memcpy keeps unaligned access defined.
template <class T>
T load_le(const uint8_t* p) {
  static_assert(std::is_arithmetic_v<T>);
  std::array<uint8_t, sizeof(T)> b;
  std::memcpy(b.data(), p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(b.begin(), b.end());
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

template <class T>
void store_le(uint8_t* p, T v) {
  static_assert(std::is_arithmetic_v<T>);
  std::array<uint8_t, sizeof(T)> b;
  std::memcpy(b.data(), &v, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(b.begin(), b.end());
  std::memcpy(p, b.data(), sizeof(T));
}

}  // namespace pb::gguf
