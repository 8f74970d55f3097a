// How each tensor of phasebench's plan is stored in a GGUF file that llama.cpp reads: the
// file's tensor name, its ggml dims, the rows it takes from that tensor, and how the values
// are transformed. Export and import both walk these rules, so they are inverse by construction.
//
// The differences from phasebench's own device layout, all llama.cpp conventions:
// - dims are ggml's ne, innermost first: a [rows][cols] matrix is {cols, rows}, stacked
//   experts {cols, rows, experts}; a single row (norms, biases, the shared-expert gate) is 1-D.
// - Qwen3.5's attention output gate has no tensor of its own: llama.cpp's qwen35moe fuses it
//   into attn_q head by head, rows [q of head 0 | gate of head 0 | q of head 1 | ...], so
//   phasebench's attn_q and attn_q_gate are alternate blocks of head_dim rows of one tensor.
// - Zero-centred norms (Gemma, Qwen3.5: applied as 1 + w) are stored with the one added, as
//   llama.cpp's converter does; Qwen3.5's DeltaNet output norm (ssm_norm) is not zero-centred.
// - ssm_a holds A = -exp(A_log), as llama.cpp's converter writes it and its graph multiplies by
//   it; phasebench keeps A_log on the device, so import takes log(-A) (exact to about one ulp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/model/tensor_plan.h"

namespace pb {

enum class GgufValueTransform {
  None,
  PlusOne,  // file = w + 1 (zero-centred norms)
  NegExp,   // file = -exp(w) (ssm_a)
};

struct GgufTensorLayout {
  std::string name;             // the file's tensor, e.g. "blk.3.attn_q.weight"
  std::vector<uint64_t> dims;   // its ggml ne, innermost first
  // The plan tensor is part `part` of `parts` interleaved blocks of `block_rows` rows each:
  // the file's row blocks go part 0, part 1, ..., part 0, ... (parts == 1: all rows, in order).
  uint32_t parts = 1;
  uint32_t part = 0;
  uint64_t block_rows = 0;
  GgufValueTransform transform = GgufValueTransform::None;
};

GgufTensorLayout gguf_tensor_layout(const ModelConfig& config, const TensorSpec& spec);

// Whether `spec` is the second part of a fused tensor (export writes the fused tensor once,
// from its first part).
inline bool is_secondary_part(const GgufTensorLayout& layout) { return layout.parts > 1 && layout.part > 0; }

// Byte offset in the file's tensor of byte `offset` of the plan tensor, and how many bytes from
// there stay contiguous (to the end of the row block); `row_bytes` is one row's size.
struct GgufSpan {
  uint64_t offset = 0;
  uint64_t contiguous = 0;
};
GgufSpan gguf_source_span(const GgufTensorLayout& layout, uint64_t row_bytes, uint64_t total_bytes,
                          uint64_t offset);

// Applies the transform to F32 values, file to phasebench (import) or back (export). Import
// throws UsageError naming `tensor` when a value cannot have come from the forward transform
// (ssm_a must be negative or zero).
void gguf_values_to_plan(GgufValueTransform t, std::span<float> values, const std::string& tensor);
void gguf_values_to_file(GgufValueTransform t, std::span<float> values);

// Drops trailing dims of 1, so {n} and {n, 1} compare equal (as llama.cpp's loader does).
std::vector<uint64_t> squeeze_dims(std::span<const uint64_t> dims);
std::string dims_string(std::span<const uint64_t> dims);  // "[256, 1000]"

}  // namespace pb
