#include "engine/model/gguf_metadata_reader.h"

#include <type_traits>
#include <variant>

#include "harness/errors.h"

namespace pb {
namespace {

using gguf::GgufArray;
using gguf::GgufType;
using gguf::GgufValue;

// An integer of any width as int64-or-more, or nullopt for a non-integer (bool included).
template <class T>
std::optional<long double> integer_value(const T& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<long double>(v);
  return std::nullopt;
}

}  // namespace

std::string GgufMetadataReader::architecture(const gguf::GgufFile& file) {
  const GgufValue* v = file.find("general.architecture");
  if (!v) {
    throw UsageError(file.name() + ": metadata key \"general.architecture\" is missing; phasebench needs it "
                     "to know the model (llama, qwen3, qwen3moe, qwen35moe, gemma3)");
  }
  if (v->type() != GgufType::STRING) {
    throw UsageError(file.name() + ": metadata key \"general.architecture\": expected a string, found " +
                     v->type_description());
  }
  return v->as_string();
}

void GgufMetadataReader::fail(std::string_view suffix, const std::string& what) const {
  fail_key(key(suffix), what);
}

void GgufMetadataReader::fail_key(const std::string& key, const std::string& what) const {
  throw UsageError(file_.name() + ": metadata key \"" + key + "\" " + what);
}

uint32_t GgufMetadataReader::count_of(const std::string& key, const GgufValue& value) const {
  auto check = [&](long double n) {
    if (n < 0) fail_key(key, "is negative; expected a count");
    if (n > UINT32_MAX) fail_key(key, "is larger than phasebench's counts (2^32-1)");
    return static_cast<uint32_t>(n);
  };
  if (const auto* array = std::get_if<GgufArray>(&value.data())) {
    std::optional<uint32_t> first;
    std::visit(
        [&](const auto& elements) {
          for (const auto& e : elements) {
            const auto n = integer_value(e);
            if (!n) fail_key(key, "is " + value.type_description() + "; expected integers");
            const uint32_t c = check(*n);
            if (first && *first != c) fail_key(key, "differs between layers; phasebench runs layers of one shape");
            first = c;
          }
        },
        array->data());
    if (!first) fail_key(key, "is an empty array");
    return *first;
  }
  const auto n = std::visit([](const auto& v) { return integer_value(v); }, value.data());
  if (!n) fail_key(key, "is " + value.type_description() + "; expected an unsigned integer");
  return check(*n);
}

float GgufMetadataReader::float_of(const std::string& key, const GgufValue& value) const {
  if (const auto* f = std::get_if<float>(&value.data())) return *f;
  if (const auto* d = std::get_if<double>(&value.data())) return static_cast<float>(*d);
  fail_key(key, "is " + value.type_description() + "; expected float32");
}

uint32_t GgufMetadataReader::u32(std::string_view suffix) const {
  const std::string k = key(suffix);
  const GgufValue* v = file_.find(k);
  if (!v) fail_key(k, "is missing; a " + arch_ + " model needs it");
  return count_of(k, *v);
}

uint32_t GgufMetadataReader::u32_or(std::string_view suffix, uint32_t fallback) const {
  const std::string k = key(suffix);
  const GgufValue* v = file_.find(k);
  return v ? count_of(k, *v) : fallback;
}

float GgufMetadataReader::f32_or(std::string_view suffix, float fallback) const {
  const std::string k = key(suffix);
  const GgufValue* v = file_.find(k);
  return v ? float_of(k, *v) : fallback;
}

bool GgufMetadataReader::bool_or(std::string_view suffix, bool fallback) const {
  const std::string k = key(suffix);
  const GgufValue* v = file_.find(k);
  if (!v) return fallback;
  if (const auto* b = std::get_if<bool>(&v->data())) return *b;
  fail_key(k, "is " + v->type_description() + "; expected bool");
}

std::optional<std::vector<bool>> GgufMetadataReader::bool_array(std::string_view suffix) const {
  const std::string k = key(suffix);
  const GgufValue* v = file_.find(k);
  if (!v) return std::nullopt;
  const auto* array = std::get_if<GgufArray>(&v->data());
  if (!array) fail_key(k, "is " + v->type_description() + "; expected an array of bool");
  std::vector<bool> out;
  std::visit(
      [&](const auto& elements) {
        for (const auto& e : elements) {
          using E = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<E, bool>) {
            out.push_back(e);
          } else if (const auto n = integer_value(e)) {
            out.push_back(*n != 0);
          } else {
            fail_key(k, "is " + v->type_description() + "; expected an array of bool");
          }
        }
      },
      array->data());
  return out;
}

uint32_t GgufMetadataReader::phasebench_u32_or(std::string_view name, uint32_t fallback) const {
  const std::string k = "phasebench." + std::string(name);
  const GgufValue* v = file_.find(k);
  return v ? count_of(k, *v) : fallback;
}

float GgufMetadataReader::phasebench_f32_or(std::string_view name, float fallback) const {
  const std::string k = "phasebench." + std::string(name);
  const GgufValue* v = file_.find(k);
  return v ? float_of(k, *v) : fallback;
}

}  // namespace pb
