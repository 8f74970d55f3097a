#include "kernels/bench/weight_cache.h"

#include "harness/device.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {

std::shared_ptr<const WeightCopies> WeightCache::get(Device& device, PipelineSet& pipelines,
                                                     WeightFormat format, uint32_t rows, uint32_t cols) {
  if (last_ && last_->format == format && last_->rows == rows && last_->cols == cols) return last_;
  last_.reset();  // freed before the next tensor is allocated, unless a live benchmark holds it
  auto w = std::make_shared<WeightCopies>();
  w->format = format;
  w->rows = rows;
  w->cols = cols;
  const uint32_t copies = rotation_copies(device.info(), tensor_bytes(format, rows, cols), cache_);
  const std::string name =
      "weights " + std::string(format_name(format)) + " " + std::to_string(rows) + "x" + std::to_string(cols);
  for (uint32_t i = 0; i < copies; ++i) {
    // Typical projection weights (std 0.02); a distinct tensor per copy, so no two read alike.
    w->copies.push_back(synthetic_tensor(device, pipelines, format, rows, cols, 1000 + i, 0.02f, name));
  }
  last_ = std::move(w);
  return last_;
}

}  // namespace pb::bench
