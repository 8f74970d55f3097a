#include "engine/model/host_weights.h"

#include <cstring>
#include <stdexcept>

#include "engine/quant/quantize.h"
#include "engine/quant/synthetic.h"

namespace pb {

HostWeights HostWeights::synthetic(const std::vector<TensorSpec>& plan, uint32_t seed) {
  HostWeights w;
  for (const TensorSpec& spec : plan) {
    HostTensor t{spec, std::vector<uint8_t>(spec.bytes()), {}};
    if (spec.host_values) {
      t.values = synthetic_f32_values(seed, spec.id, spec.total_rows() * spec.cols, spec.center, spec.spread);
      std::memcpy(t.bytes.data(), t.values.data(), t.bytes.size());
    } else {
      generate_synthetic(spec.format, seed, spec.id, spec.total_rows(), spec.cols, spec.target_std, t.bytes);
      t.values.resize(spec.total_rows() * spec.cols);
      const uint64_t rb = row_bytes(spec.format, spec.cols);
      for (uint64_t r = 0; r < spec.total_rows(); ++r) {
        dequantize_row(spec.format, std::span(t.bytes).subspan(r * rb, rb),
                       std::span(t.values).subspan(r * spec.cols, spec.cols));
      }
    }
    w.index_[{spec.role, spec.layer}] = w.tensors_.size();
    w.tensors_.push_back(std::move(t));
  }
  return w;
}

bool HostWeights::has(TensorRole role, int32_t layer) const { return index_.count({role, layer}) > 0; }

const HostTensor& HostWeights::get(TensorRole role, int32_t layer) const {
  const auto it = index_.find({role, layer});
  if (it == index_.end()) throw std::out_of_range("no host tensor for that role and layer");
  return tensors_[it->second];
}

}  // namespace pb
