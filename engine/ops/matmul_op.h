// Op builder for the tiled matmul of `prefill: matmul` (kernels/matmul_*.comp and
// kernels/coopmat/matmul_coopmat_*.comp): the ProjectionProblem the DMMV solves, computed as
// a tiled Y = W X over all tokens of a chunk at once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/ops/binding_limits.h"
#include "engine/ops/matmul_split.h"
#include "engine/ops/matmul_tiling.h"
#include "engine/ops/projection.h"
#include "harness/device_info.h"
#include "harness/op.h"

namespace pb {

// Which matmul kernel and how it is tiled.
struct MatmulChoice {
  bool coopmat = false;         // cooperative-matrix kernel; the scalar one otherwise
  uint32_t subgroup_size = 32;  // coopmat: the workgroup is coop.blocks() subgroups this wide
  ScalarTiling scalar;          // tiles of the scalar kernel
  CoopmatTiling coop;           // tiles of the cooperative-matrix kernel

  uint32_t threads() const { return coopmat ? coop.threads(subgroup_size) : scalar.threads(); }
  uint32_t shared_bytes() const { return coopmat ? coop.shared_bytes() : scalar.shared_bytes(); }
};

// Mirrors the push-constant block of kernels/include/matmul_tile_io.glsl.
struct MatmulPush {
  uint32_t rows;      // rows of this dispatch's weight slice
  uint32_t cols;      // K: input length
  uint32_t ncols;     // tokens of this dispatch
  uint32_t x_stride;  // floats between x columns
  uint32_t y_stride;  // floats between y columns
  uint32_t row_base;  // y row of the slice's first row
  uint32_t x_offset;  // floats from the x binding's start to this dispatch's first column
  uint32_t y_offset;  // floats from the y binding's start to this dispatch's first column
};

// True when the device reports the 16x16x16 f16 x f16 -> f32 subgroup-scope shape the
// coopmat kernels are written for (and cooperative matrix is enabled).
bool has_coopmat_f16_16x16x16(const DeviceInfo& info);

// Weights per group of the coopmat kernel's weight source (kernels/include/matmul_weights_*):
// its K step must be a multiple of this: 32 for the quantized formats (a Q4_K sub-block, a
// Q8_0 block, 32 weights of a Q6_K block sharing their bit positions), 8 for F16 and F32.
uint32_t coopmat_weight_group(WeightFormat format);

// True when tiling `t` fits the device's shared memory and workgroup size (the workgroup is
// t.blocks() subgroups of at least 32 invocations).
bool coopmat_tiling_fits(const DeviceInfo& info, const CoopmatTiling& t);

// The matmul for `format` on this device: cooperative matrix when `allow_coopmat`, the
// device has the shape above, 32- or 64-wide subgroups, and the coopmat kernel was compiled
// in (glslang >= 14); the scalar kernel otherwise. Default tiles either way, except that an op
// of `tokens` up to kCoopmatNarrowTokens (0: not known) with quantized weights takes
// kCoopmatTilingNarrow where it fits.
MatmulChoice choose_matmul(const DeviceInfo& info, WeightFormat format, bool allow_coopmat = true,
                           uint32_t tokens = 0);

// The ops computing the problem: one per row slice (weights larger than the binding range
// are split by rows, like the DMMV) and per column piece (only when the activations of all
// tokens exceed the binding range). With `split_scratch` (matmul_split_scratch_bytes), a
// coopmat op of few tiles splits its K across workgroups and a second op adds the splits into
// y (matmul_split.h); the ops of one call share the scratch, so the hazard ledger orders them.
// Throws UsageError for a tiling that breaks the kernel's divisibility rules, cols that are not
// a multiple of 8, an x_stride that is not a multiple of 4 or an x that does not start on 16
// bytes (the kernels read activations as vec4), strides shorter than cols/rows, or a coopmat
// choice whose kernel was not compiled in. With `split`, it receives the split op's slots where
// the problem ran as exactly one split op and its reduction (one row slice, one piece), and is
// reset elsewhere.
std::vector<Op> matmul_ops(const ProjectionProblem& problem, const BindingLimits& limits,
                           const MatmulChoice& choice = {}, const TensorView& split_scratch = {},
                           std::optional<SplitSlots>* split = nullptr);

// Throws UsageError when `choice` breaks its kernel's divisibility rules for weights in
// `format` (tiles that are not multiples of their blocks, a K step that splits the weight
// groups, a coopmat subgroup narrower than 32).
void check_matmul_choice(const MatmulChoice& choice, WeightFormat format);

// The tiles and the workgroup size of `choice` as the matmul bodies' specialization constants
// (0 to 5, and 7 for the coopmat stages); the caller adds its own (6: accumulate; 8: the
// experts' input column; 9: the K splits).
SpecConstants matmul_tile_spec(const MatmulChoice& choice);

// "matmul_q4_k" or "matmul_coopmat_q4_k", ...
const char* matmul_kernel_name(WeightFormat format, bool coopmat);

}  // namespace pb
