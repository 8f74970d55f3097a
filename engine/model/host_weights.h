// The same synthetic weights on the host, dequantized to float: what the CPU reference forward
// reads. Only sensible for the tiny presets.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/model/tensor_plan.h"

namespace pb {

struct HostTensor {
  TensorSpec spec;
  std::vector<uint8_t> bytes;   // in spec.format, exactly what the device holds
  std::vector<float> values;    // dequantized, [experts][rows][cols] row-major
};

class HostWeights {
 public:
  static HostWeights synthetic(const std::vector<TensorSpec>& plan, uint32_t seed);
  const HostTensor& get(TensorRole role, int32_t layer = -1) const;
  bool has(TensorRole role, int32_t layer = -1) const;

 private:
  std::vector<HostTensor> tensors_;
  std::map<std::pair<TensorRole, int32_t>, size_t> index_;
};

}  // namespace pb
