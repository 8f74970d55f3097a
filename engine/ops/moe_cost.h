// The work and the compulsory memory traffic of one expert DMMV (kernels/moe_dmmv_*.comp), so
// a benchmark or a run's bandwidth figure counts the weights of the experts actually read,
// not the whole stacked tensor.
#pragma once

#include <cmath>
#include <cstdint>

#include "engine/quant/weight_format.h"

namespace pb {

struct MoeDmmvCost {
  double flops = 0;         // 2 * rows * cols per assignment
  double weight_bytes = 0;  // each selected expert's matrix, read once
  double x_bytes = 0;       // 4 * cols per input column read
  double y_bytes = 0;       // 4 * rows per assignment written

  double bytes() const { return weight_bytes + x_bytes + y_bytes; }
};

// n_items: distinct experts selected in the chunk (the work list's counter); assignments: C*K;
// input_columns: C for gate/up, C*K for down. Passes beyond the first re-read an expert's
// weights, mostly from cache; they are not counted.
inline MoeDmmvCost moe_dmmv_cost(WeightFormat format, uint64_t rows, uint64_t cols, uint64_t n_items,
                                 uint64_t assignments, uint64_t input_columns) {
  MoeDmmvCost c;
  c.flops = 2.0 * double(rows) * double(cols) * double(assignments);
  c.weight_bytes = double(n_items) * double(tensor_bytes(format, rows, cols));
  c.x_bytes = 4.0 * double(cols) * double(input_columns);
  c.y_bytes = 4.0 * double(rows) * double(assignments);
  return c;
}

// Distinct experts C tokens select on average when each picks K of E uniformly: what n_items
// is expected to be where the device's counter is not read back (decode: K; a 64-token chunk
// at 8 of 128: about 126).
inline double expected_distinct_experts(uint32_t experts, uint32_t top_k, uint32_t ncols) {
  return experts * (1.0 - std::pow(1.0 - double(top_k) / experts, double(ncols)));
}

}  // namespace pb
