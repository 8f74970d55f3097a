// A GGUF model file opened for running: the memory-mapped file, its plan (config, tensors,
// formats, sources), and the upload of its weights to the device. Tensor bytes go from the
// mapping through Transfer's bounded staging buffer chunk by chunk, so loading a 20 GB model
// costs the staging buffer (64 MiB) of host memory beyond the mapping's page cache.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/gguf/gguf_reader.h"
#include "engine/model/gguf_plan.h"
#include "engine/model/model_weights.h"

namespace pb {

class Device;
class Transfer;

class GgufModel {
 public:
  // Maps and parses the file and plans the model; throws UsageError (GgufError for a malformed
  // file) naming the file and what is wrong, before any device memory is touched.
  static GgufModel open(const std::filesystem::path& path);

  const gguf::GgufFile& file() const { return file_; }
  const ModelConfig& config() const { return plan_.config; }
  const std::vector<TensorSpec>& plan() const { return plan_.specs; }
  const std::vector<std::string>& notes() const { return plan_.notes; }

  // Allocates every tensor of plan() on the device and uploads it from the file. Qwen3.5's fused
  // attn_q is split into attn_q and attn_q_gate on the way; F32 tensors that llama.cpp stores
  // transformed (zero-centred norms, ssm_a) are converted back on the host (they are vectors).
  ModelWeights upload(Device& device, Transfer& transfer) const;

 private:
  GgufModel(gguf::GgufFile file, GgufPlan plan) : file_(std::move(file)), plan_(std::move(plan)) {}

  gguf::GgufFile file_;
  GgufPlan plan_;
};

}  // namespace pb
