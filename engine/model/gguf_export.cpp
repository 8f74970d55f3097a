#include "engine/model/gguf_export.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/model/gguf_config.h"
#include "engine/model/gguf_tensor_layout.h"
#include "engine/model/gguf_tokenizer.h"
#include "engine/quant/synthetic.h"
#include "harness/errors.h"

namespace pb {
namespace {

using gguf::GgmlType;
using gguf::GgufValue;

// ggml's GGML_QNT_VERSION: the k-quant block layouts phasebench writes.
constexpr uint32_t kQuantizationVersion = 2;

// llama.cpp's general.file_type (enum llama_ftype) for a weight choice.
uint32_t file_type(const WeightChoice& w) {
  if (!w.uniform) return 15;  // LLAMA_FTYPE_MOSTLY_Q4_K_M
  switch (*w.uniform) {
    case WeightFormat::F32: return 0;   // ALL_F32
    case WeightFormat::F16: return 1;   // MOSTLY_F16
    case WeightFormat::Q8_0: return 7;  // MOSTLY_Q8_0
    case WeightFormat::Q4_K: return 14; // MOSTLY_Q4_K_S
    case WeightFormat::Q6_K: return 18; // MOSTLY_Q6_K
  }
  return 0;
}

// Bytes [offset, offset + out.size()) of a synthetic matrix. The writer's chunks do not fall on
// block boundaries, so a block cut by a chunk edge is generated whole and only its part copied.
void synthetic_bytes(const TensorSpec& spec, SyntheticScale scale, uint32_t seed, uint64_t offset,
                     std::span<uint8_t> out) {
  const uint64_t bb = block_bytes(spec.format);
  std::vector<uint8_t> block(bb);
  for (uint64_t done = 0; done < out.size();) {
    const uint64_t at = offset + done, first = at / bb, skip = at % bb;
    const uint64_t whole = skip == 0 ? (out.size() - done) / bb : 0;
    if (whole > 0) {
      generate_synthetic_blocks(spec.format, seed, spec.id, first, whole, scale, out.subspan(done, whole * bb));
      done += whole * bb;
    } else {
      generate_synthetic_blocks(spec.format, seed, spec.id, first, 1, scale, block);
      const uint64_t n = std::min(bb - skip, out.size() - done);
      std::memcpy(out.data() + done, block.data() + skip, n);
      done += n;
    }
  }
}

gguf::GgufWriter::TensorFiller matrix_filler(const TensorSpec& spec, uint32_t seed) {
  const SyntheticScale scale = synthetic_scale(spec.format, spec.target_std);
  return [spec, scale, seed](uint64_t offset, std::span<uint8_t> out) {
    synthetic_bytes(spec, scale, seed, offset, out);
  };
}

// A tensor fused from `parts` (in part order), interleaved in blocks of layout.block_rows rows.
gguf::GgufWriter::TensorFiller fused_filler(std::vector<TensorSpec> parts, const GgufTensorLayout& layout,
                                            uint32_t seed) {
  std::vector<SyntheticScale> scales;
  for (const auto& p : parts) scales.push_back(synthetic_scale(p.format, p.target_std));
  const uint64_t block = layout.block_rows * row_bytes(parts[0].format, parts[0].cols);
  return [parts, scales, block, seed](uint64_t offset, std::span<uint8_t> out) {
    for (uint64_t done = 0; done < out.size();) {
      const uint64_t at = offset + done, k = at / block, within = at % block;
      const size_t part = k % parts.size();
      const uint64_t n = std::min(block - within, out.size() - done);
      synthetic_bytes(parts[part], scales[part], seed, (k / parts.size()) * block + within, out.subspan(done, n));
      done += n;
    }
  };
}

std::vector<uint8_t> vector_bytes(const TensorSpec& spec, const GgufTensorLayout& layout, uint32_t seed) {
  std::vector<float> values =
      synthetic_f32_values(seed, spec.id, spec.total_rows() * spec.cols, spec.center, spec.spread);
  gguf_values_to_file(layout.transform, values);
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace

gguf::GgufWriter gguf_export_writer(const ModelConfig& config, const WeightChoice& weights, uint32_t seed) {
  validate_config(config);
  gguf::GgufWriter w;  // alignment 32, GGUF's default (so general.alignment is implied)
  add_config_metadata(w, config);
  w.add("general.quantization_version", GgufValue(kQuantizationVersion));
  w.add("general.file_type", GgufValue(file_type(weights)));
  // Provenance: what regenerates these weights in phasebench itself.
  w.add("phasebench.preset", config.name);
  w.add("phasebench.weights", weights.name());
  w.add("phasebench.seed", GgufValue(seed));
  add_placeholder_tokenizer(w, config.vocab);

  const std::vector<TensorSpec> plan = plan_tensors(config, weights);
  std::vector<GgufTensorLayout> layouts;
  for (const auto& spec : plan) layouts.push_back(gguf_tensor_layout(config, spec));
  for (size_t i = 0; i < plan.size(); ++i) {
    const TensorSpec& spec = plan[i];
    const GgufTensorLayout& layout = layouts[i];
    if (is_secondary_part(layout)) continue;
    const auto type = static_cast<GgmlType>(ggml_type_id(spec.format));
    if (spec.host_values) {
      w.add_tensor(layout.name, layout.dims, type, vector_bytes(spec, layout, seed));
    } else if (layout.parts > 1) {
      std::vector<TensorSpec> parts(layout.parts);
      for (size_t j = 0; j < plan.size(); ++j) {
        if (layouts[j].name == layout.name) parts[layouts[j].part] = plan[j];
      }
      for (const auto& p : parts) {
        if (p.format != spec.format) {
          throw UsageError("export: " + layout.name + " fuses tensors of different formats");
        }
      }
      w.add_tensor(layout.name, layout.dims, type, fused_filler(std::move(parts), layout, seed));
    } else {
      w.add_tensor(layout.name, layout.dims, type, matrix_filler(spec, seed));
    }
  }
  return w;
}

void export_gguf(const ModelConfig& config, const WeightChoice& weights, uint32_t seed,
                 const std::filesystem::path& out) {
  gguf_export_writer(config, weights, seed).write(out);
}

}  // namespace pb
