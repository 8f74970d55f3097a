// The ggml tensor types a GGUF file can name: id, name, and block geometry (how many elements
// one block holds and how many bytes it takes). Ids and sizes follow ggml's type traits
// (ggml.c, ggml-common.h); ids whose support ggml removed (4, 5, 31-33, 36-38) are absent,
// and unknown ids are reported by number.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace pb::gguf {

enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
};

struct GgmlTypeInfo {
  GgmlType type;
  std::string_view name;    // as ggml spells it: "Q4_K", "BF16"
  uint32_t block_elements;  // elements per block (1 for plain types)
  uint32_t block_bytes;     // bytes per block
};

// Every known type, in id order.
std::span<const GgmlTypeInfo> ggml_type_table();

// The traits of type `id`, or nullptr when phasebench does not know it.
const GgmlTypeInfo* find_ggml_type(uint32_t id);
const GgmlTypeInfo& ggml_type_info(GgmlType type);

// "Q4_K" for a known id, "unknown ggml type 40" otherwise.
std::string ggml_type_name(uint32_t id);

// Case-sensitive lookup by ggml's spelling ("Q8_0"); nullopt when unknown.
std::optional<GgmlType> ggml_type_from_name(std::string_view name);

// Element count of a tensor (the product of `dims`; 1 for no dims), or the reason it is invalid.
struct ElementCount {
  uint64_t count = 0;
  std::string error;  // empty on success
};
// Fails when the product exceeds INT64_MAX (ggml counts elements in int64_t).
ElementCount ggml_element_count(std::span<const uint64_t> dims);

// Byte size of a tensor, or the reason it cannot be computed.
struct TensorBytes {
  uint64_t bytes = 0;
  std::string error;  // empty on success
};
// Rows (dims[0], ggml's ne0) must hold whole blocks; fails on overflow or a partial block.
TensorBytes ggml_tensor_bytes(const GgmlTypeInfo& type, std::span<const uint64_t> dims);

}  // namespace pb::gguf
