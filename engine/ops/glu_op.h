// Op builder for the FFN's gated activation (kernels/glu.comp): SwiGLU and Gemma's GeGLU.
#pragma once

#include <cstdint>

#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

// The values are the kernel's specialization constant 0.
enum class GluActivation : int32_t {
  Silu = 0,      // x * sigmoid(x): SwiGLU (Llama, Qwen)
  GeluTanh = 1,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): GeGLU (Gemma)
};

struct GluPush {
  uint32_t n;            // elements per column
  uint32_t gate_stride;  // floats between gate columns
  uint32_t up_stride;    // floats between up columns
  uint32_t out_stride;   // floats between out columns
};

// out[c][i] = act(gate[c][i]) * up[c][i] for i < n, c < ncols. gate and up may be the two
// halves of one fused projection output (views at offsets 0 and n floats, both with the fused
// stride); out must not overlap them.
struct GluProblem {
  TensorView gate;
  TensorView up;
  TensorView out;
  uint32_t n = 0;
  uint32_t ncols = 1;
  uint32_t gate_stride = 0;
  uint32_t up_stride = 0;
  uint32_t out_stride = 0;
  GluActivation activation = GluActivation::Silu;
};

Op glu_op(const GluProblem& problem);

}  // namespace pb
