// What phasebench would run from a GGUF file: the model config its metadata describes, the plan
// of tensors with each tensor's format as stored, and which file tensor (and which rows of it)
// every plan tensor comes from. Planning checks every tensor before anything is allocated or
// read, so a file phasebench cannot run fails with one clear message naming the tensor or key.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/gguf/gguf_reader.h"
#include "engine/model/gguf_tensor_layout.h"
#include "engine/model/model_config.h"
#include "engine/model/tensor_plan.h"

namespace pb {

inline constexpr std::string_view kGgufSupportedTypes = "F32, F16, Q8_0, Q4_K, Q6_K";

struct GgufPlan {
  ModelConfig config;
  std::vector<TensorSpec> specs;            // plan_tensors' order, formats from the file
  std::vector<GgufTensorLayout> layouts;    // per spec: how it is stored
  std::vector<size_t> sources;              // per spec: index into the file's tensors()
  std::vector<std::string> notes;           // what phasebench ignores (unused tensors, RoPE scaling)
};

// Throws UsageError naming the file and the tensor or key: an architecture phasebench does not
// run, a missing key or tensor, a shape that does not match the metadata, a ggml type other
// than F32, F16, Q8_0, Q4_K and Q6_K (or not F32 where phasebench reads floats directly).
GgufPlan plan_gguf(const gguf::GgufFile& file);

}  // namespace pb
