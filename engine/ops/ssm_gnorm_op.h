// Op builder for the Gated DeltaNet output norm (kernels/ssm_gnorm.comp), phase ssm_gnorm:
//   y[c][h] = o[c][h] / sqrt(mean(o[c][h]^2) + eps) * weight * silu(z[c][h])
// per value head h of d_v floats, one weight vector shared by all heads.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct SsmGnormPush {
  uint32_t n;         // floats per head (d_v)
  uint32_t o_stride;  // floats between o columns
  uint32_t z_stride;  // floats between z columns
  uint32_t y_stride;  // floats between y columns
  float eps;          // added to the mean square
};

struct SsmGnormProblem {
  TensorView o;       // column c at float c * o_stride: [heads][d_v] (ssm_delta's output)
  TensorView z;       // column c at float c * z_stride: [heads][d_v] (the gate projection)
  TensorView weight;  // d_v f32
  TensorView y;       // column c at float c * y_stride: [heads][d_v]; overlaps neither o nor z
  uint32_t heads = 0;  // value heads
  uint32_t d_v = 0;
  uint32_t ncols = 1;
  uint32_t o_stride = 0;
  uint32_t z_stride = 0;
  uint32_t y_stride = 0;
  float eps = 1e-6f;
};

// Groups (heads, ncols). Phase SsmGnorm; the caller sets layer and token. Throws UsageError for
// a view that is too small or y overlapping o or z.
Op ssm_gnorm_op(const SsmGnormProblem& problem);

}  // namespace pb
