// Reading metadata values: scalars, strings, and arrays (possibly nested). Array lengths are
// checked against the bytes left before any element is allocated.
#include <limits>

#include "engine/gguf/gguf_parse.h"

namespace pb::gguf {
namespace {

GgufArray read_array(ByteCursor& c, int depth);

// The fewest bytes one encoded value of `type` can take (an empty string is its length
// field; an empty array is its element type and length fields).
uint64_t min_encoded_bytes(uint32_t type) {
  switch (static_cast<GgufType>(type)) {
    case GgufType::UINT8:
    case GgufType::INT8:
    case GgufType::BOOL:
      return 1;
    case GgufType::UINT16:
    case GgufType::INT16:
      return 2;
    case GgufType::UINT32:
    case GgufType::INT32:
    case GgufType::FLOAT32:
      return 4;
    case GgufType::UINT64:
    case GgufType::INT64:
    case GgufType::FLOAT64:
      return 8;
    case GgufType::STRING:
      return 8;
    case GgufType::ARRAY:
      return 4 + 8;
  }
  return 1;  // unreachable for valid ids; callers check the id first
}

[[noreturn]] void fail_unknown_type(const ByteCursor& c, uint64_t at, uint32_t type,
                                    std::string_view what) {
  c.fail_at(at, "unknown " + std::string(what) + " " + std::to_string(type) +
                    " (valid types are 0..12: uint8, int8, uint16, int16, uint32, int32, "
                    "float32, bool, string, array, uint64, int64, float64)");
}

// One element of type T; `depth` is the nesting level of the array holding it.
template <class T>
T read_one(ByteCursor& c, int depth) {
  if constexpr (std::is_same_v<T, std::string>) {
    return c.read_string("string");
  } else if constexpr (std::is_same_v<T, GgufArray>) {
    return read_array(c, depth + 1);
  } else if constexpr (std::is_same_v<T, bool>) {
    // The spec: "Anything else is invalid, and should be treated as ... the model being invalid".
    const uint64_t at = c.offset();
    const uint8_t b = c.read<uint8_t>("bool value");
    if (b > 1) c.fail_at(at, "bool value must be 0 or 1, found " + std::to_string(b));
    return b == 1;
  } else {
    return c.read<T>(gguf_type_name(gguf_type_of<T>()) + " value");
  }
}

template <class T>
GgufArray read_elements(ByteCursor& c, uint64_t count, int depth) {
  std::vector<T> v;
  v.reserve(static_cast<size_t>(count));  // bounded by the caller's remaining-bytes check
  for (uint64_t i = 0; i < count; ++i) v.push_back(read_one<T>(c, depth));
  return GgufArray(std::move(v));
}

GgufArray read_array(ByteCursor& c, int depth) {
  if (depth >= kMaxArrayDepth) {
    c.fail("arrays are nested more than " + std::to_string(kMaxArrayDepth) + " levels deep");
  }
  const uint64_t type_at = c.offset();
  const uint32_t type = c.read<uint32_t>("array element type");
  if (type >= kGgufTypeCount) fail_unknown_type(c, type_at, type, "array element type");
  const uint64_t count_at = c.offset();
  const uint64_t count = c.read<uint64_t>("array length");
  const uint64_t min = min_encoded_bytes(type);
  if (count > c.remaining() / min) {
    c.fail_at(count_at, "array length " + std::to_string(count) + " is impossible: each " +
                            gguf_type_name(type) + " element takes at least " +
                            std::to_string(min) + " bytes, and only " +
                            std::to_string(c.remaining()) + " bytes remain");
  }
  switch (static_cast<GgufType>(type)) {
    case GgufType::UINT8:
      return read_elements<uint8_t>(c, count, depth);
    case GgufType::INT8:
      return read_elements<int8_t>(c, count, depth);
    case GgufType::UINT16:
      return read_elements<uint16_t>(c, count, depth);
    case GgufType::INT16:
      return read_elements<int16_t>(c, count, depth);
    case GgufType::UINT32:
      return read_elements<uint32_t>(c, count, depth);
    case GgufType::INT32:
      return read_elements<int32_t>(c, count, depth);
    case GgufType::FLOAT32:
      return read_elements<float>(c, count, depth);
    case GgufType::BOOL:
      return read_elements<bool>(c, count, depth);
    case GgufType::STRING:
      return read_elements<std::string>(c, count, depth);
    case GgufType::ARRAY:
      return read_elements<GgufArray>(c, count, depth);
    case GgufType::UINT64:
      return read_elements<uint64_t>(c, count, depth);
    case GgufType::INT64:
      return read_elements<int64_t>(c, count, depth);
    case GgufType::FLOAT64:
      return read_elements<double>(c, count, depth);
  }
  fail_unknown_type(c, type_at, type, "array element type");
}

}  // namespace

GgufValue read_gguf_value(ByteCursor& c, uint32_t type, uint64_t type_at) {
  switch (static_cast<GgufType>(type)) {
    case GgufType::UINT8:
      return read_one<uint8_t>(c, 0);
    case GgufType::INT8:
      return read_one<int8_t>(c, 0);
    case GgufType::UINT16:
      return read_one<uint16_t>(c, 0);
    case GgufType::INT16:
      return read_one<int16_t>(c, 0);
    case GgufType::UINT32:
      return read_one<uint32_t>(c, 0);
    case GgufType::INT32:
      return read_one<int32_t>(c, 0);
    case GgufType::FLOAT32:
      return read_one<float>(c, 0);
    case GgufType::BOOL:
      return read_one<bool>(c, 0);
    case GgufType::STRING:
      return read_one<std::string>(c, 0);
    case GgufType::ARRAY:
      return read_array(c, 0);
    case GgufType::UINT64:
      return read_one<uint64_t>(c, 0);
    case GgufType::INT64:
      return read_one<int64_t>(c, 0);
    case GgufType::FLOAT64:
      return read_one<double>(c, 0);
  }
  fail_unknown_type(c, type_at, type, "value type");
}

}  // namespace pb::gguf
