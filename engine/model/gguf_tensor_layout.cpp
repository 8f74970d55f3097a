#include "engine/model/gguf_tensor_layout.h"

#include <cmath>

#include "harness/errors.h"

namespace pb {
namespace {

// Norms phasebench applies as (1 + w) in a model with norm_add_one: every RMSNorm weight of the
// plan except the DeltaNet output norm (ssm_norm), which Qwen3.5 applies as w.
bool zero_centred_norm(const ModelConfig& c, TensorRole role) {
  if (!c.norm_add_one) return false;
  switch (role) {
    case TensorRole::AttnNorm:
    case TensorRole::AttnQNorm:
    case TensorRole::AttnKNorm:
    case TensorRole::AttnPostNorm:
    case TensorRole::FfnNorm:
    case TensorRole::FfnPostNorm:
    case TensorRole::OutputNorm:
      return true;
    default:
      return false;
  }
}

}  // namespace

GgufTensorLayout gguf_tensor_layout(const ModelConfig& c, const TensorSpec& s) {
  GgufTensorLayout l;
  l.name = s.name;
  if (s.experts > 1) {
    l.dims = {s.cols, s.rows, s.experts};
  } else if (s.rows == 1) {
    l.dims = {s.cols};
  } else {
    l.dims = {s.cols, s.rows};
  }
  const bool gated_q = s.role == TensorRole::AttnQ || s.role == TensorRole::AttnOutputGate;
  if (c.attention_output_gate && gated_q) {
    l.name = "blk." + std::to_string(s.layer) + ".attn_q.weight";
    l.dims = {s.cols, 2 * s.rows};
    l.parts = 2;
    l.part = s.role == TensorRole::AttnOutputGate ? 1 : 0;
    l.block_rows = c.attention(static_cast<uint32_t>(s.layer)).head_dim;
  }
  if (zero_centred_norm(c, s.role)) l.transform = GgufValueTransform::PlusOne;
  if (s.role == TensorRole::SsmALog) l.transform = GgufValueTransform::NegExp;
  return l;
}

GgufSpan gguf_source_span(const GgufTensorLayout& l, uint64_t row_bytes, uint64_t total_bytes,
                          uint64_t offset) {
  if (l.parts <= 1) return {offset, total_bytes - offset};
  const uint64_t block = l.block_rows * row_bytes;
  const uint64_t k = offset / block, within = offset % block;
  return {(k * l.parts + l.part) * block + within, block - within};
}

void gguf_values_to_plan(GgufValueTransform t, std::span<float> values, const std::string& tensor) {
  for (float& v : values) {
    if (t == GgufValueTransform::PlusOne) {
      v -= 1.0f;
    } else if (t == GgufValueTransform::NegExp) {
      // A = -exp(A_log) is negative, or -0 where A_log underflowed; log(0) = -inf round-trips
      // through the kernel's -exp(A_log) to that same zero decay.
      if (!(v <= 0.0f)) {
        throw UsageError("tensor \"" + tensor + "\" holds " + std::to_string(v) +
                         "; ssm_a must hold A = -exp(A_log) <= 0 (llama.cpp's convention)");
      }
      v = static_cast<float>(std::log(-static_cast<double>(v)));
    }
  }
}

void gguf_values_to_file(GgufValueTransform t, std::span<float> values) {
  for (float& v : values) {
    if (t == GgufValueTransform::PlusOne) v += 1.0f;
    if (t == GgufValueTransform::NegExp) v = static_cast<float>(-std::exp(static_cast<double>(v)));
  }
}

std::vector<uint64_t> squeeze_dims(std::span<const uint64_t> dims) {
  std::vector<uint64_t> out(dims.begin(), dims.end());
  while (out.size() > 1 && out.back() == 1) out.pop_back();
  return out;
}

std::string dims_string(std::span<const uint64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

}  // namespace pb
