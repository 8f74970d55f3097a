// CPU reference of per-head q/k RMSNorm and rotary embedding: norm in float64, and the rotary
// angle position * theta^(-2i / rope_dims) and its rotation in float64.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

struct QkNormRopeParams {
  uint32_t n_q_heads = 0;
  uint32_t n_k_heads = 0;
  uint32_t head_dim = 0;
  uint32_t rope_dims = 0;  // leading dimensions rotated; 0 = none
  uint32_t pos0 = 0;       // position of column 0
  uint32_t ncols = 1;
  uint32_t q_stride = 0;   // floats between q columns
  uint32_t k_stride = 0;   // floats between k columns
  double theta = 10000.0;
  float eps = 1e-6f;
  bool neox = true;      // pairs (i, i + rope_dims / 2); false: (2i, 2i + 1)
  bool qk_norm = false;  // RMSNorm each head with q_norm / k_norm first
  bool add_one = false;  // norm weight 1 + w
};

// In place on q and k (head h of column c at c * stride + h * head_dim).
void qk_norm_rope(std::span<float> q, std::span<float> k, std::span<const float> q_norm,
                  std::span<const float> k_norm, const QkNormRopeParams& p);

}  // namespace pb::ref
