#include "engine/quant/weight_format.h"

#include <array>
#include <string>

#include "harness/errors.h"

namespace pb {
namespace {

struct FormatTraits {
  std::string_view name;
  uint32_t ggml_type;
  uint32_t block_weights;
  uint32_t block_bytes;
};

// Indexed by WeightFormat.
constexpr std::array<FormatTraits, 5> kTraits = {{
    {"f32", 0, 1, 4},
    {"f16", 1, 1, 2},
    {"q8_0", 8, 32, 34},
    {"q4_k", 12, 256, 144},
    {"q6_k", 14, 256, 210},
}};

const FormatTraits& traits(WeightFormat format) {
  const auto i = static_cast<size_t>(format);
  if (i >= kTraits.size()) {
    throw UsageError("weight format value " + std::to_string(i) + " is not one of f32, f16, "
                     "q8_0, q4_k, q6_k");
  }
  return kTraits[i];
}

}  // namespace

std::string_view format_name(WeightFormat format) { return traits(format).name; }

std::optional<WeightFormat> parse_weight_format(std::string_view name) {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (kTraits[i].name == name) return static_cast<WeightFormat>(i);
  }
  return std::nullopt;
}

WeightFormat weight_format_from_name(std::string_view name) {
  if (auto f = parse_weight_format(name)) return *f;
  throw UsageError("unknown weight format '" + std::string(name) +
                   "'; expected one of f32, f16, q8_0, q4_k, q6_k");
}

uint32_t ggml_type_id(WeightFormat format) { return traits(format).ggml_type; }

std::optional<WeightFormat> weight_format_from_ggml_type(uint32_t type_id) {
  for (size_t i = 0; i < kTraits.size(); ++i) {
    if (kTraits[i].ggml_type == type_id) return static_cast<WeightFormat>(i);
  }
  return std::nullopt;
}

uint32_t block_weights(WeightFormat format) { return traits(format).block_weights; }
uint32_t block_bytes(WeightFormat format) { return traits(format).block_bytes; }

uint64_t row_bytes(WeightFormat format, uint64_t cols) {
  const FormatTraits& t = traits(format);
  if (cols % t.block_weights != 0) {
    throw UsageError("a " + std::string(t.name) + " row must hold a multiple of " +
                     std::to_string(t.block_weights) + " weights; got " + std::to_string(cols) +
                     " columns");
  }
  return cols / t.block_weights * t.block_bytes;
}

uint64_t tensor_bytes(WeightFormat format, uint64_t rows, uint64_t cols) {
  return rows * row_bytes(format, cols);
}

}  // namespace pb
