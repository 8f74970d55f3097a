#include "engine/gguf/gguf_value.h"

#include <array>
#include <cstdio>

#include "engine/gguf/gguf_error.h"

namespace pb::gguf {
namespace {

constexpr std::array<const char*, kGgufTypeCount> kTypeNames = {
    "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
    "bool",  "string", "array",  "uint64", "int64",  "float64"};

// Dumps of huge arrays (a 150k-token vocabulary) stay readable.
constexpr size_t kShownElements = 8;

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <class T>
std::string scalar_to_string(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return quoted(v);
  } else if constexpr (std::is_same_v<T, GgufArray>) {
    std::string out = "[";
    std::visit(
        [&](const auto& vec) {
          for (size_t i = 0; i < vec.size() && i < kShownElements; ++i) {
            if (i) out += ", ";
            out += scalar_to_string(
                static_cast<const typename std::decay_t<decltype(vec)>::value_type&>(vec[i]));
          }
          if (vec.size() > kShownElements) {
            out += ", ... (" + std::to_string(vec.size()) + " elements)";
          }
        },
        v.data());
    return out + "]";
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

}  // namespace

std::string gguf_type_name(uint32_t id) {
  if (id < kGgufTypeCount) return kTypeNames[id];
  return "unknown value type " + std::to_string(id);
}

size_t GgufArray::size() const {
  return std::visit([](const auto& v) { return v.size(); }, data_);
}

std::string GgufValue::type_description() const {
  if (const auto* a = std::get_if<GgufArray>(&data_)) {
    return "array of " + gguf_type_name(a->element_type());
  }
  return gguf_type_name(type());
}

uint64_t GgufValue::as_unsigned(std::string_view name) const {
  return std::visit(
      [&](const auto& v) -> uint64_t {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
          if constexpr (std::is_signed_v<V>) {
            if (v < 0) {
              throw GgufError({}, std::string(name), std::nullopt,
                              "expected a non-negative integer, found " + type_description() + " " +
                                  std::to_string(v));
            }
          }
          return static_cast<uint64_t>(v);
        } else {
          throw_type_mismatch(name, "an unsigned integer", type_description());
        }
      },
      data_);
}

std::string GgufValue::to_string() const {
  return std::visit([](const auto& v) { return scalar_to_string(v); }, data_);
}

void throw_type_mismatch(std::string_view name, const std::string& expected,
                         const std::string& found) {
  throw GgufError({}, name.empty() ? std::string("metadata value") : std::string(name),
                  std::nullopt, "expected " + expected + ", found " + found);
}

}  // namespace pb::gguf
