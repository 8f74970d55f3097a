// GGUF metadata values: the twelve scalar types, strings, and (possibly nested) arrays.
// Both variants below list their alternatives in the order of the on-disk type ids
// (UINT8 = 0 ... FLOAT64 = 12), so `index()` is the GgufType; static_asserts pin that.
// Arrays are homogeneous on disk, so they are stored as typed vectors: a 150k-entry vocabulary
// is one std::vector<std::string>, not 150k variants.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace pb::gguf {

enum class GgufType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};
inline constexpr uint32_t kGgufTypeCount = 13;

// "uint32", "string", "array", ...; "unknown value type 13" past the end.
std::string gguf_type_name(uint32_t id);
inline std::string gguf_type_name(GgufType t) { return gguf_type_name(static_cast<uint32_t>(t)); }

class GgufArray;

template <class... Ts>
using GgufVectors = std::variant<std::vector<Ts>...>;

class GgufArray {
 public:
  using Data = GgufVectors<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                           std::string, GgufArray, uint64_t, int64_t, double>;

  GgufArray() = default;  // an empty uint8 array
  template <class T>
  explicit GgufArray(std::vector<T> elements) : data_(std::move(elements)) {}

  GgufType element_type() const { return static_cast<GgufType>(data_.index()); }
  size_t size() const;
  bool empty() const { return size() == 0; }

  // The elements as their stored type; throws GgufError (naming `name` when given) when the
  // array holds another element type.
  template <class T>
  const std::vector<T>& as(std::string_view name = {}) const;

  const Data& data() const { return data_; }
  bool operator==(const GgufArray&) const = default;

 private:
  Data data_;
};

class GgufValue {
 public:
  using Data = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                            std::string, GgufArray, uint64_t, int64_t, double>;

  GgufValue() = default;  // uint8 0
  // Only the exact alternative types convert, so GgufValue(3) does not guess a width:
  // write GgufValue(uint32_t{3}).
  template <class T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, GgufValue> &&
           std::is_constructible_v<Data, std::in_place_type_t<std::remove_cvref_t<T>>, T>)
      GgufValue(T&& v)
      : data_(std::in_place_type<std::remove_cvref_t<T>>, std::forward<T>(v)) {}
  GgufValue(const char* s) : data_(std::string(s)) {}
  GgufValue(std::string_view s) : data_(std::string(s)) {}
  template <class T>
  GgufValue(std::vector<T> v) : data_(GgufArray(std::move(v))) {}

  GgufType type() const { return static_cast<GgufType>(data_.index()); }
  // "uint32", or "array of string" for arrays: what error messages print as the found type.
  std::string type_description() const;

  // The value as its stored type; throws GgufError naming `name` (e.g. the key) and the
  // expected and actual types when it holds another type. No silent conversion.
  template <class T>
  const T& as(std::string_view name = {}) const;
  const GgufArray& as_array(std::string_view name = {}) const { return as<GgufArray>(name); }
  const std::string& as_string(std::string_view name = {}) const { return as<std::string>(name); }

  // Any unsigned integer, or a signed one that is not negative, widened to uint64: the spec
  // lets writers store counts as uint32 or uint64, and readers should take both.
  uint64_t as_unsigned(std::string_view name = {}) const;

  // A short human-readable rendering (arrays show their first few elements), for dumps.
  std::string to_string() const;

  const Data& data() const { return data_; }
  bool operator==(const GgufValue&) const = default;

 private:
  Data data_;
};

static_assert(std::is_same_v<std::variant_alternative_t<7, GgufValue::Data>, bool>);
static_assert(std::is_same_v<std::variant_alternative_t<9, GgufValue::Data>, GgufArray>);
static_assert(std::variant_size_v<GgufValue::Data> == kGgufTypeCount);
static_assert(std::variant_size_v<GgufArray::Data> == kGgufTypeCount);

namespace detail {
template <class T, class V>
struct AlternativeIndex;
template <class T, class... Ts>
struct AlternativeIndex<T, std::variant<Ts...>> {
  static constexpr size_t value = [] {
    size_t i = 0;
    const bool found = ((std::is_same_v<T, Ts> ? true : (++i, false)) || ...);
    return found ? i : sizeof...(Ts);
  }();
};
}  // namespace detail

// The GgufType of a C++ value type (uint32_t -> UINT32, std::string -> STRING, ...).
template <class T>
constexpr GgufType gguf_type_of() {
  constexpr size_t index = detail::AlternativeIndex<T, GgufValue::Data>::value;
  static_assert(index < kGgufTypeCount, "not a GGUF value type");
  return static_cast<GgufType>(index);
}

[[noreturn]] void throw_type_mismatch(std::string_view name, const std::string& expected,
                                      const std::string& found);

template <class T>
const std::vector<T>& GgufArray::as(std::string_view name) const {
  if (const auto* v = std::get_if<std::vector<T>>(&data_)) return *v;
  throw_type_mismatch(name, "array of " + gguf_type_name(gguf_type_of<T>()),
                      "array of " + gguf_type_name(element_type()));
}

template <class T>
const T& GgufValue::as(std::string_view name) const {
  if (const auto* v = std::get_if<T>(&data_)) return *v;
  throw_type_mismatch(name, gguf_type_name(gguf_type_of<T>()), type_description());
}

}  // namespace pb::gguf
