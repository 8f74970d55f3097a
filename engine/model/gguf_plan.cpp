#include "engine/model/gguf_plan.h"

#include <unordered_set>

#include "engine/model/gguf_config.h"
#include "engine/quant/device_layout.h"
#include "engine/quant/weight_format.h"
#include "harness/errors.h"

namespace pb {
namespace {

[[noreturn]] void fail(const gguf::GgufFile& file, const std::string& tensor, const std::string& what) {
  throw UsageError(file.name() + ": tensor \"" + tensor + "\" " + what);
}

// The stored format of `spec`'s source tensor, checked.
WeightFormat stored_format(const gguf::GgufFile& file, const TensorSpec& spec, const GgufTensorLayout& layout,
                           const gguf::GgufTensorInfo& info) {
  const auto format = weight_format_from_ggml_type(info.ggml_type);
  if (!format) {
    fail(file, layout.name, "has ggml type " + info.type_name() +
                                ", which phasebench cannot load; the supported types are " +
                                std::string(kGgufSupportedTypes));
  }
  // Norm weights, conv taps and SSM parameters feed kernels that read f32 directly (and are
  // what llama.cpp's quantizer leaves in F32).
  if (spec.host_values && *format != WeightFormat::F32) {
    fail(file, layout.name, "has ggml type " + info.type_name() + "; phasebench reads this tensor as F32");
  }
  if (layout.transform != GgufValueTransform::None && *format != WeightFormat::F32) {
    fail(file, layout.name, "has ggml type " + info.type_name() + "; it must be F32");
  }
  // Experts stack in one tensor and each must start a group of rows (device_layout.h).
  const uint32_t rows_multiple = device_rows_multiple(*format);
  if (spec.experts > 1 && spec.rows % rows_multiple != 0) {
    fail(file, layout.name, "has ggml type " + info.type_name() + " and experts of " + std::to_string(spec.rows) +
                                " rows; phasebench stores " + info.type_name() + " in groups of " +
                                std::to_string(rows_multiple) + " rows on the device, so each expert needs a "
                                "multiple of " + std::to_string(rows_multiple) + " (store it as Q8_0, Q4_K or F16)");
  }
  return *format;
}

void check_shape(const gguf::GgufFile& file, const GgufTensorLayout& layout, const gguf::GgufTensorInfo& info) {
  if (squeeze_dims(info.dims) == squeeze_dims(layout.dims)) return;
  fail(file, layout.name, "has shape " + dims_string(info.dims) + " (ggml ne, innermost first); the "
                              "metadata describes " + dims_string(layout.dims));
}

}  // namespace

GgufPlan plan_gguf(const gguf::GgufFile& file) {
  GgufPlan p;
  p.config = config_from_gguf(file, &p.notes);
  // The weight choice does not matter: every format is replaced by the stored one.
  p.specs = plan_tensors(p.config, WeightChoice{});
  std::unordered_set<size_t> used;
  std::vector<std::string> missing;
  for (TensorSpec& spec : p.specs) {
    GgufTensorLayout layout = gguf_tensor_layout(p.config, spec);
    const gguf::GgufTensorInfo* info = file.find_tensor(layout.name);
    if (!info) {
      if (missing.empty() || missing.back() != layout.name) missing.push_back(layout.name);
      p.layouts.push_back(std::move(layout));
      p.sources.push_back(0);
      continue;
    }
    check_shape(file, layout, *info);
    spec.format = stored_format(file, spec, layout, *info);
    used.insert(info->index);
    p.sources.push_back(info->index);
    p.layouts.push_back(std::move(layout));
  }
  if (!missing.empty()) {
    std::string more = missing.size() > 1 ? " (and " + std::to_string(missing.size() - 1) + " more)" : "";
    fail(file, missing.front(), "is missing" + more + "; a " + architecture_name(p.config.arch) +
                                    " model of this shape needs it");
  }
  std::string unused;
  size_t unused_count = 0;
  for (const auto& info : file.tensors()) {
    if (used.count(info.index)) continue;
    if (unused_count++ < 8) unused += (unused.empty() ? "" : ", ") + info.name;
  }
  if (unused_count > 0) {
    if (unused_count > 8) unused += ", ... (" + std::to_string(unused_count) + " in all)";
    p.notes.push_back("tensors phasebench does not use: " + unused);
  }
  return p;
}

}  // namespace pb
