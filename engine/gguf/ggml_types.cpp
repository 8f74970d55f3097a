#include "engine/gguf/ggml_types.h"

#include <array>
#include <limits>

namespace pb::gguf {
namespace {

using T = GgmlType;
constexpr uint32_t QK_K = 256;  // super-block size of the K and IQ types

// Block sizes are the sizeof() of ggml's block structs (ggml-common.h); the comment after each
// entry is that struct's layout, so the number can be checked by eye.
constexpr std::array kTypes = {
    GgmlTypeInfo{T::F32, "F32", 1, 4},
    GgmlTypeInfo{T::F16, "F16", 1, 2},
    GgmlTypeInfo{T::Q4_0, "Q4_0", 32, 18},          // d + qs[16]
    GgmlTypeInfo{T::Q4_1, "Q4_1", 32, 20},          // d, m + qs[16]
    GgmlTypeInfo{T::Q5_0, "Q5_0", 32, 22},          // d + qh[4] + qs[16]
    GgmlTypeInfo{T::Q5_1, "Q5_1", 32, 24},          // d, m + qh[4] + qs[16]
    GgmlTypeInfo{T::Q8_0, "Q8_0", 32, 34},          // d + qs[32]
    GgmlTypeInfo{T::Q8_1, "Q8_1", 32, 36},          // d, s + qs[32]
    GgmlTypeInfo{T::Q2_K, "Q2_K", QK_K, 84},        // scales[16] + qs[64] + d, dmin
    GgmlTypeInfo{T::Q3_K, "Q3_K", QK_K, 110},       // hmask[32] + qs[64] + scales[12] + d
    GgmlTypeInfo{T::Q4_K, "Q4_K", QK_K, 144},       // d, dmin + scales[12] + qs[128]
    GgmlTypeInfo{T::Q5_K, "Q5_K", QK_K, 176},       // d, dmin + scales[12] + qh[32] + qs[128]
    GgmlTypeInfo{T::Q6_K, "Q6_K", QK_K, 210},       // ql[128] + qh[64] + scales[16] + d
    GgmlTypeInfo{T::Q8_K, "Q8_K", QK_K, 292},       // float d + qs[256] + int16 bsums[16]
    GgmlTypeInfo{T::IQ2_XXS, "IQ2_XXS", QK_K, 66},  // d + uint16 qs[32]
    GgmlTypeInfo{T::IQ2_XS, "IQ2_XS", QK_K, 74},    // d + uint16 qs[32] + scales[8]
    GgmlTypeInfo{T::IQ3_XXS, "IQ3_XXS", QK_K, 98},  // d + qs[96]
    GgmlTypeInfo{T::IQ1_S, "IQ1_S", QK_K, 50},      // d + qs[32] + uint16 qh[8]
    GgmlTypeInfo{T::IQ4_NL, "IQ4_NL", 32, 18},      // d + qs[16]
    GgmlTypeInfo{T::IQ3_S, "IQ3_S", QK_K, 110},     // d + qs[64] + qh[8] + signs[32] + scales[4]
    GgmlTypeInfo{T::IQ2_S, "IQ2_S", QK_K, 82},      // d + qs[64] + qh[8] + scales[8]
    GgmlTypeInfo{T::IQ4_XS, "IQ4_XS", QK_K, 136},   // d + scales_h + scales_l[4] + qs[128]
    GgmlTypeInfo{T::I8, "I8", 1, 1},
    GgmlTypeInfo{T::I16, "I16", 1, 2},
    GgmlTypeInfo{T::I32, "I32", 1, 4},
    GgmlTypeInfo{T::I64, "I64", 1, 8},
    GgmlTypeInfo{T::F64, "F64", 1, 8},
    GgmlTypeInfo{T::IQ1_M, "IQ1_M", QK_K, 56},  // qs[32] + qh[16] + scales[8]
    GgmlTypeInfo{T::BF16, "BF16", 1, 2},
    GgmlTypeInfo{T::TQ1_0, "TQ1_0", QK_K, 54},  // qs[48] + qh[4] + d
    GgmlTypeInfo{T::TQ2_0, "TQ2_0", QK_K, 66},  // qs[64] + d
    GgmlTypeInfo{T::MXFP4, "MXFP4", 32, 17},    // e8m0 e + qs[16]
};

constexpr uint64_t kMaxElements = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

}  // namespace

std::span<const GgmlTypeInfo> ggml_type_table() { return kTypes; }

const GgmlTypeInfo* find_ggml_type(uint32_t id) {
  for (const GgmlTypeInfo& info : kTypes) {
    if (static_cast<uint32_t>(info.type) == id) return &info;
  }
  return nullptr;
}

const GgmlTypeInfo& ggml_type_info(GgmlType type) {
  // Every enumerator has a table entry (a test checks it), so this cannot be null.
  return *find_ggml_type(static_cast<uint32_t>(type));
}

std::string ggml_type_name(uint32_t id) {
  if (const GgmlTypeInfo* info = find_ggml_type(id)) return std::string(info->name);
  return "unknown ggml type " + std::to_string(id);
}

std::optional<GgmlType> ggml_type_from_name(std::string_view name) {
  for (const GgmlTypeInfo& info : kTypes) {
    if (info.name == name) return info.type;
  }
  return std::nullopt;
}

ElementCount ggml_element_count(std::span<const uint64_t> dims) {
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] > kMaxElements) {
      return {0, "dimension ne" + std::to_string(i) + " = " + std::to_string(dims[i]) +
                     " exceeds INT64_MAX"};
    }
    has_zero |= dims[i] == 0;
  }
  // An empty tensor, whatever the other dimensions are (and no division by zero below).
  if (has_zero) return {0, {}};
  uint64_t count = 1;
  for (uint64_t d : dims) {
    if (count > kMaxElements / d) {
      return {0, "the element count (product of the dimensions) overflows INT64_MAX"};
    }
    count *= d;
  }
  return {count, {}};
}

TensorBytes ggml_tensor_bytes(const GgmlTypeInfo& type, std::span<const uint64_t> dims) {
  const ElementCount n = ggml_element_count(dims);
  if (!n.error.empty()) return {0, n.error};
  const uint64_t ne0 = dims.empty() ? 1 : dims[0];
  if (ne0 % type.block_elements != 0) {
    return {0, "row length ne0 = " + std::to_string(ne0) + " is not a multiple of the " +
                   std::string(type.name) + " block size " + std::to_string(type.block_elements)};
  }
  // ne0 divides by the block size, so the element count does too.
  const uint64_t blocks = n.count / type.block_elements;
  if (blocks > UINT64_MAX / type.block_bytes) {
    return {0, "the byte size (" + std::to_string(blocks) + " blocks of " +
                   std::to_string(type.block_bytes) + " bytes) overflows 64 bits"};
  }
  return {blocks * type.block_bytes, {}};
}

}  // namespace pb::gguf
