// An ordered set of GGUF metadata key/value pairs: iteration in file order, lookup by key,
// typed getters whose errors name the file, the key, the expected and the found type.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/gguf/gguf_value.h"

namespace pb::gguf {

struct GgufKeyValue {
  std::string key;
  GgufValue value;
  std::optional<uint64_t> offset;  // byte offset of the key in the file, when read from one
};

class GgufMetadata {
 public:
  // `source` names the file in error messages.
  explicit GgufMetadata(std::string source = {}) : source_(std::move(source)) {}

  // Adds a pair; returns the existing entry instead when the key is already present (the
  // caller decides how to report that), or nullptr when it was added.
  const GgufKeyValue* insert(std::string key, GgufValue value,
                             std::optional<uint64_t> offset = std::nullopt);

  const GgufKeyValue* find_entry(std::string_view key) const;
  const GgufValue* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find_entry(key) != nullptr; }
  // Throws GgufError when the key is absent.
  const GgufValue& get(std::string_view key) const;

  // The value as exactly type T; throws GgufError when absent or of another type.
  template <class T>
  const T& get_as(std::string_view key) const;

  uint8_t get_u8(std::string_view key) const { return get_as<uint8_t>(key); }
  uint16_t get_u16(std::string_view key) const { return get_as<uint16_t>(key); }
  uint32_t get_u32(std::string_view key) const { return get_as<uint32_t>(key); }
  uint64_t get_u64(std::string_view key) const { return get_as<uint64_t>(key); }
  int32_t get_i32(std::string_view key) const { return get_as<int32_t>(key); }
  int64_t get_i64(std::string_view key) const { return get_as<int64_t>(key); }
  float get_f32(std::string_view key) const { return get_as<float>(key); }
  double get_f64(std::string_view key) const { return get_as<double>(key); }
  bool get_bool(std::string_view key) const { return get_as<bool>(key); }
  const std::string& get_string(std::string_view key) const { return get_as<std::string>(key); }
  // Any non-negative integer type widened to uint64 (see GgufValue::as_unsigned).
  uint64_t get_unsigned(std::string_view key) const;

  const GgufArray& get_array(std::string_view key) const { return get_as<GgufArray>(key); }
  // The elements of an array of T; throws when absent, not an array, or of another element type.
  template <class T>
  const std::vector<T>& get_array(std::string_view key) const;
  const std::vector<std::string>& get_string_array(std::string_view key) const {
    return get_array<std::string>(key);
  }

  const std::string& source() const { return source_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  std::span<const GgufKeyValue> entries() const { return entries_; }

 private:
  // Heterogeneous lookup, so find(string_view) does not build a std::string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  [[noreturn]] void throw_mismatch(const GgufKeyValue& kv, const std::string& expected) const;
  const GgufKeyValue& entry(std::string_view key) const;

  std::string source_;
  std::vector<GgufKeyValue> entries_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index_;
};

template <class T>
const T& GgufMetadata::get_as(std::string_view key) const {
  const GgufKeyValue& kv = entry(key);
  if (const T* v = std::get_if<T>(&kv.value.data())) return *v;
  throw_mismatch(kv, gguf_type_name(gguf_type_of<T>()));
}

template <class T>
const std::vector<T>& GgufMetadata::get_array(std::string_view key) const {
  const GgufKeyValue& kv = entry(key);
  if (const auto* a = std::get_if<GgufArray>(&kv.value.data())) {
    if (const auto* v = std::get_if<std::vector<T>>(&a->data())) return *v;
  }
  throw_mismatch(kv, "array of " + gguf_type_name(gguf_type_of<T>()));
}

}  // namespace pb::gguf
