// Tile sizes of the matmul kernels (their specialization constants 0..4) and what a tiling
// costs in threads and shared memory. The scalar defaults fit the 32 KiB of shared memory
// lavapipe offers; the coopmat defaults (36 KiB, 512 threads at subgroup 32) were the fastest
// of eleven tilings on an H200 (q4_k and f16, 4096 and 14336 rows x 4096, 512 tokens).
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

// kernels/coopmat/matmul_coopmat_<format>.comp: f16 tiles, a 32 x 32 block of Y (four 16 x 16
// f32 accumulators) per subgroup; the block is fixed in the shader (see why there).
struct CoopmatTiling {
  uint32_t bm = 128;  // weight rows per workgroup, a multiple of 32
  uint32_t bn = 128;  // tokens per workgroup, a multiple of 32
  uint32_t bk = 32;   // K step, a multiple of 16

  // Subgroup blocks per workgroup: the workgroup is this many subgroups.
  uint32_t blocks() const { return (bm / 32) * (bn / 32); }
  uint32_t threads(uint32_t subgroup_size) const { return blocks() * subgroup_size; }
  // f16 tiles with rows of bk + 8 halves, plus a 16 x 16 float32 staging tile per block
  // (matmul_coopmat_body.glsl): 36 KiB for the defaults.
  uint32_t shared_bytes() const { return 2 * (bk + 8) * (bm + bn) + blocks() * 16 * 16 * 4; }
};

// The coopmat tiling for devices where the default's 36 KiB or 512 threads do not fit: 23 KiB
// and 256 threads at subgroup 32 (25% slower on the H200).
inline constexpr CoopmatTiling kCoopmatTilingSmall{128, 64, 32};

}  // namespace pb
