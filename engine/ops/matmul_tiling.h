// Tile sizes of the matmul kernels (their specialization constants 0..4, and 7 for the
// coopmat kernel's stages) and what a tiling costs in threads and shared memory. The scalar
// defaults fit the 32 KiB of shared memory lavapipe offers; the coopmat defaults are chosen
// from the matmul_coopmat_tuning benchmarks on an H200 (docs/GPU_FIGURES.md).
#pragma once

#include <cstdint>

namespace pb {

// kernels/matmul_<format>.comp: float32 tiles, a TM x TN register micro-tile per thread.
struct ScalarTiling {
  uint32_t bm = 128;  // weight rows per workgroup, a multiple of tm
  uint32_t bn = 64;   // tokens per workgroup, a multiple of tn
  uint32_t bk = 32;   // K step, a multiple of 8
  uint32_t tm = 8;    // rows per thread
  uint32_t tn = 4;    // tokens per thread

  uint32_t threads() const { return (bm / tm) * (bn / tn); }
  // float32 tiles, k-major, one float of padding per k (matmul_body.glsl).
  uint32_t shared_bytes() const { return 4 * bk * ((bm + 1) + (bn + 1)); }
};

// kernels/coopmat/matmul_coopmat_<format>.comp: f16 tiles in `stages` shared buffers per
// operand, a wm x wn block of Y (16 x 16 f32 accumulators) per subgroup.
struct CoopmatTiling {
  uint32_t bm = 128;     // weight rows per workgroup, a multiple of wm
  uint32_t bn = 128;     // tokens per workgroup, a multiple of wn
  uint32_t bk = 64;      // K step, a multiple of 16
  uint32_t wm = 64;      // rows per subgroup block: 32 or 64
  uint32_t wn = 32;      // tokens per subgroup block: 32 or 64
  uint32_t stages = 1;   // shared tiles per operand: 1 (a barrier pair per step) or 2 (one)

  // Subgroup blocks per workgroup: the workgroup is this many subgroups.
  uint32_t blocks() const { return (bm / wm) * (bn / wn); }
  uint32_t threads(uint32_t subgroup_size) const { return blocks() * subgroup_size; }
  // f16 tiles with rows of bk + 8 halves, plus a 16 x 16 float32 staging tile per block
  // (matmul_coopmat_body.glsl): 44 KiB for the defaults.
  uint32_t shared_bytes() const { return stages * 2 * (bk + 8) * (bm + bn) + blocks() * 16 * 16 * 4; }
};

// The default above is for quantized weights, whose decode a workgroup of 128 x 128 shares
// among more tokens; F16 and F32 weights, cheap to load, do better with 64 tokens per
// workgroup (31 KiB). See docs/GPU_FIGURES.md for the tuning runs.
inline constexpr CoopmatTiling kCoopmatTilingFloat{128, 64, 64, 64, 32, 1};

// Quantized weights at up to 32 tokens (prefill's default chunk): one 32-token block wide, so
// no subgroup multiplies padding, and 256 rows, so the weight decode of a step is shared by four
// subgroups (45.5 KiB, 128 threads at subgroup 32). On an H200 at 32 tokens, 4096 x 4096 in 28
// us against the default's 32 and 4096 x 14336 in 86 against 100 (docs/GPU_FIGURES.md).
inline constexpr CoopmatTiling kCoopmatTilingNarrow{256, 32, 64, 64, 32, 1};
inline constexpr uint32_t kCoopmatNarrowTokens = 32;  // token counts up to this take it

// The coopmat tiling for devices where the defaults do not fit: 23 KiB and 256 threads at
// subgroup 32.
inline constexpr CoopmatTiling kCoopmatTilingSmall{128, 64, 32, 32, 32, 1};

}  // namespace pb
