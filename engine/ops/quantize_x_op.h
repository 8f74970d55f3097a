// Quantized activations for the integer-dot DMMV (kernels/intdot/quantize_x.comp): each
// activation column cut into blocks of 32, each block stored as 32 int8 quants and a scale,
// x[k] ~ d * q[k] with d = max|x| / 127 (rounded up to 11 significant bits) and q the nearest
// integer (ties to even). One projection input is quantized once and read by every projection
// that shares it (q/k/v, gate/up).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/projection.h"
#include "harness/op.h"

namespace pb {

inline constexpr uint32_t kQuantizedXBlock = 32;  // activations per block

// An RMSNorm output held in its int8 form before its division by the RMS (norm_placement:
// producer): the quants are of x * w (x the norm's input, w its weight), and each projection
// that reads them divides its sums by rms(x) (kernels/include/dmmv_intdot_input_rms.glsl).
struct DeferredRms {
  TensorView block_squares;  // one float per block of 32: the sum of x^2 over it (one column)
  float eps = 0;             // the norm's epsilon
};

// Where the quantized activations of `ncols` columns of `cols` live.
struct QuantizedX {
  TensorView quants;  // int8, column c at byte c * cols; must start on 16 bytes (read as uvec4)
  TensorView scales;  // 2 floats per block, (d, d * sum of its quants), column c at float 2 c cols / 32; starts on 8 bytes
  uint32_t cols = 0;   // activations per column, a multiple of 32
  uint32_t ncols = 0;  // columns held
  std::optional<DeferredRms> rms;  // set where the norm's division is left to the reader
};

// Bytes of one buffer holding both parts, the scales at the first offset after the quants that
// the device lets a binding start at.
uint64_t quantized_x_bytes(uint32_t cols, uint32_t ncols, const BindingLimits& limits);
// The two parts laid out in `storage` (at least quantized_x_bytes long, starting on an offset a
// binding may start at). Throws UsageError when it is too short or cols is not a multiple of 32.
QuantizedX quantized_x_in(const TensorView& storage, uint32_t cols, uint32_t ncols, const BindingLimits& limits);

// Bytes of one column of `cols` quantized activations that carries its block squares (an
// RMSNorm output with a DeferredRms), the squares after the scales where a binding may start.
uint64_t deferred_norm_bytes(uint32_t cols, const BindingLimits& limits);
// That column laid out in `storage` (at least deferred_norm_bytes long), its rms set with `eps`.
QuantizedX deferred_norm_in(const TensorView& storage, uint32_t cols, float eps, const BindingLimits& limits);

// Mirrors the push-constant block of kernels/intdot/quantize_x.comp.
struct QuantizeXPush {
  uint32_t cols;      // floats per column, a multiple of 32
  uint32_t ncols;     // columns
  uint32_t x_stride;  // floats between x columns
  uint32_t x_offset;  // floats from the x binding's start to column 0
};

// The op quantizing columns 0 .. problem.ncols - 1 of problem.x (problem.cols floats each, at
// problem.x_stride) into `out`. Throws UsageError when the quantize_x kernel was not compiled in
// (it needs glslang with GL_EXT_integer_dot_product), for cols not a multiple of 32, an
// x_stride below cols, or an `out` of other cols or fewer columns.
std::vector<Op> quantize_x_ops(const ProjectionProblem& problem, const QuantizedX& out, const BindingLimits& limits);

}  // namespace pb
