// Rotation copies of synthetic weight tensors, kept between benchmarks: the 20 DMMV variants of
// one format and shape run one after another and read the same weights.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/quant/weight_format.h"
#include "harness/buffer.h"
#include "kernels/bench/rotation.h"

namespace pb {
class Device;
class PipelineSet;
}  // namespace pb

namespace pb::bench {

struct WeightCopies {
  WeightFormat format = WeightFormat::F32;
  uint32_t rows = 0;           // outputs
  uint32_t cols = 0;           // inputs
  std::vector<Buffer> copies;  // each a different synthetic tensor of this shape
};

class WeightCache {
 public:
  explicit WeightCache(InputCache cache) : cache_(cache) {}

  // The copies of a rows x cols tensor in `format` (rotation_copies of them), generated on
  // first use. Only the last tensor asked for is kept: the LM head's copies alone can take
  // gigabytes.
  std::shared_ptr<const WeightCopies> get(Device& device, PipelineSet& pipelines, WeightFormat format,
                                          uint32_t rows, uint32_t cols);

 private:
  InputCache cache_;
  std::shared_ptr<const WeightCopies> last_;
};

}  // namespace pb::bench
