// Op builder for per-head q/k RMSNorm and rotary embedding, in place, in one dispatch
// (kernels/qk_norm_rope.comp). The same op serves "norm + rope" (Qwen3, Gemma), "rope only"
// (qk_norm = false: Llama) and "norm only" (rope_dims = 0).
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

// The values are the kernel's specialization constant 2.
enum class RopeStyle : int32_t {
  Normal = 0,  // pairs (2i, 2i + 1): llama.cpp's LLAMA rope
  Neox = 1,    // pairs (i, i + rope_dims / 2): Qwen, Gemma
};

struct QkNormRopePush {
  uint32_t n_q_heads;   // heads in q
  uint32_t n_k_heads;   // heads in k
  uint32_t head_dim;    // elements per head, even, <= 512
  uint32_t rope_dims;   // leading dimensions of a head rotated, even, <= head_dim (0: none)
  uint32_t pos0;        // position of column 0
  uint32_t q_stride;    // floats between q columns
  uint32_t k_stride;    // floats between k columns
  float freq_ratio_hi;  // theta^(-2 / rope_dims), computed in double, as float hi + lo: the
  float freq_ratio_lo;  //   kernel builds angles in float-float from it (see rope_angle.glsl)
  float eps;            // added to the mean square of a head
};

struct QkNormRopeProblem {
  TensorView q;       // column c at float c * q_stride; head h at h * head_dim; read and written
  TensorView k;       // column c at float c * k_stride; likewise
  TensorView q_norm;  // head_dim floats; unused (may be empty) when qk_norm is false
  TensorView k_norm;  // head_dim floats; likewise
  uint32_t n_q_heads = 0;
  uint32_t n_k_heads = 0;
  uint32_t head_dim = 0;
  uint32_t rope_dims = 0;  // partial rotary: Qwen3.5 rotates 64 of 256
  uint32_t pos0 = 0;       // column c is at position pos0 + c
  uint32_t ncols = 1;
  uint32_t q_stride = 0;
  uint32_t k_stride = 0;
  float theta = 10000.0f;  // rope base
  float eps = 1e-6f;
  RopeStyle style = RopeStyle::Neox;
  bool qk_norm = false;
  bool add_one = false;  // norm weight is 1 + w (Gemma)
};

// Groups (n_q_heads + n_k_heads, ncols). Without the norm, bindings 2 and 3 (never read) repeat
// the first 16 bytes of q's span unless views are given. Throws UsageError for an odd or too
// large head_dim, rope_dims outside [0, head_dim], an op with nothing to do, or a small view.
Op qk_norm_rope_op(const QkNormRopeProblem& problem);
// The kernel's push constants for `problem` (unchecked; qk_norm_rope_op checks).
QkNormRopePush qk_norm_rope_push(const QkNormRopeProblem& problem);

}  // namespace pb
