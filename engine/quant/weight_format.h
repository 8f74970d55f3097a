// Weight storage formats and their sizes. The quantized formats are exactly GGUF's (ggml's)
// block layouts, so a tensor phasebench generates can be exported to GGUF and loaded by
// llama.cpp, and a tensor loaded from GGUF keeps its bytes. (On the device, Q8_0 and Q6_K
// order those bytes differently, with the same sizes: engine/quant/device_layout.h.)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pb {

// The enumerator order is part of the GPU interface: kernels take the format as
// specialization constant 0 with these values (see kernels/include/dequant.glsl).
enum class WeightFormat : uint32_t { F32, F16, Q8_0, Q4_K, Q6_K };

inline constexpr WeightFormat kAllWeightFormats[] = {
    WeightFormat::F32, WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
    WeightFormat::Q6_K};

std::string_view format_name(WeightFormat format);  // "f32", "f16", "q8_0", "q4_k", "q6_k"
std::optional<WeightFormat> parse_weight_format(std::string_view name);
// Throws UsageError listing the allowed names when `name` is not one of them.
WeightFormat weight_format_from_name(std::string_view name);

uint32_t ggml_type_id(WeightFormat format);  // GGUF tensor type: 0, 1, 8, 12, 14
std::optional<WeightFormat> weight_format_from_ggml_type(uint32_t type_id);

uint32_t block_weights(WeightFormat format);  // weights per block: 1, 1, 32, 256, 256
uint32_t block_bytes(WeightFormat format);    // bytes per block: 4, 2, 34, 144, 210

// Bytes of one row of `cols` weights. Throws UsageError naming the format when `cols` is not
// a multiple of its block size.
uint64_t row_bytes(WeightFormat format, uint64_t cols);
uint64_t tensor_bytes(WeightFormat format, uint64_t rows, uint64_t cols);

}  // namespace pb
