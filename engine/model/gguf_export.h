// Writes a model config with its synthetic weights as a standard GGUF v3 file that llama.cpp
// and other GGUF engines load: llama.cpp's architecture name, metadata keys and tensor names and
// layouts (gguf_config.h, gguf_tensor_layout.h), a placeholder tokenizer (gguf_tokenizer.h), and
// the exact bytes ModelWeights::synthetic generates on the device for the same seed, so both
// engines run identical weights. Matrices are generated on the CPU block by block as the writer
// streams them out (4 MiB at a time): exporting a 20 GB preset needs no 20 GB of memory.
#pragma once

#include <cstdint>
#include <filesystem>

#include "engine/gguf/gguf_writer.h"
#include "engine/model/model_config.h"
#include "engine/model/tensor_plan.h"

namespace pb {

// The writer for the export; its tensors are produced when it writes. Throws UsageError when the
// config cannot be expressed in llama.cpp's conventions.
gguf::GgufWriter gguf_export_writer(const ModelConfig& config, const WeightChoice& weights, uint32_t seed);

// Builds the writer and writes `out` atomically (std::system_error on I/O failure).
void export_gguf(const ModelConfig& config, const WeightChoice& weights, uint32_t seed,
                 const std::filesystem::path& out);

}  // namespace pb
