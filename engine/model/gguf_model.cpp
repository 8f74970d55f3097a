#include "engine/model/gguf_model.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine/quant/device_layout.h"
#include "engine/quant/weight_format.h"
#include "harness/transfer.h"

namespace pb {

GgufModel GgufModel::open(const std::filesystem::path& path) {
  gguf::GgufFile file = gguf::GgufFile::open(path);
  GgufPlan plan = plan_gguf(file);
  return GgufModel(std::move(file), std::move(plan));
}

ModelWeights GgufModel::upload(Device& device, Transfer& transfer) const {
  ModelWeights weights = ModelWeights::allocate(device, plan_.config, plan_.specs);
  for (size_t i = 0; i < weights.tensors().size(); ++i) {
    const DeviceTensor& t = weights.tensors()[i];
    const GgufTensorLayout& layout = plan_.layouts[i];
    const std::span<const uint8_t> source = file_.tensor_data(file_.tensors()[plan_.sources[i]]);
    const uint64_t bytes = t.spec.bytes();
    if (layout.transform != GgufValueTransform::None) {
      // An F32 vector (a norm or ssm_a: at most a few thousand floats) never fused with another.
      std::vector<float> values(bytes / sizeof(float));
      std::memcpy(values.data(), source.data(), bytes);
      gguf_values_to_plan(layout.transform, values, layout.name);
      transfer.upload_from<float>(*t.storage, t.offset, values);
      continue;
    }
    const uint64_t row = row_bytes(t.spec.format, t.spec.cols);
    // GGUF's bytes of the tensor from byte `at` into `out`.
    const auto gather = [&](std::span<uint8_t> out, uint64_t at) {
      for (uint64_t done = 0; done < out.size();) {
        const GgufSpan span = gguf_source_span(layout, row, bytes, at + done);
        const uint64_t n = std::min<uint64_t>(span.contiguous, out.size() - done);
        if (span.offset + n > source.size()) throw std::logic_error("GGUF upload past " + layout.name);
        std::memcpy(out.data() + done, source.data() + span.offset, n);
        done += n;
      }
    };
    if (!has_device_layout(t.spec.format)) {
      transfer.upload_stream(*t.storage, t.offset, bytes, gather);
      continue;
    }
    // Reordered a unit at a time (a row, or Q6_K's group of 8 rows, fewer in the last:
    // device_layout.h); a chunk may start or end inside a unit.
    const uint64_t unit = row * device_rows_multiple(t.spec.format);
    std::vector<uint8_t> gguf_unit(unit), device_unit(unit);
    transfer.upload_stream(*t.storage, t.offset, bytes, [&](std::span<uint8_t> chunk, VkDeviceSize at) {
      for (uint64_t done = 0; done < chunk.size();) {
        const uint64_t unit_start = (at + done) / unit * unit;
        const uint64_t unit_bytes = std::min(unit, bytes - unit_start);
        const std::span<uint8_t> gguf_part = std::span(gguf_unit).first(unit_bytes);
        const std::span<uint8_t> device_part = std::span(device_unit).first(unit_bytes);
        gather(gguf_part, unit_start);
        gguf_to_device_rows(t.spec.format, t.spec.cols, gguf_part, device_part);
        const uint64_t within = at + done - unit_start;
        const uint64_t n = std::min<uint64_t>(unit_bytes - within, chunk.size() - done);
        std::memcpy(chunk.data() + done, device_part.data() + within, n);
        done += n;
      }
    });
  }
  weights.zero_pads(transfer);
  return weights;
}

}  // namespace pb
