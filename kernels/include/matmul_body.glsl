// Tiled matmul on the shader cores, Y[c][row] (+)= sum_k W[row][k] X[c][k]: each workgroup
// computes a BM (weight rows) x BN (tokens) tile of Y. Per BK step it dequantizes the BM x BK
// weight tile and loads the BN x BK activation tile into shared memory, then each thread
// accumulates a TM x TN register micro-tile from them, so every weight is decoded once per
// BN tokens instead of once per token as in the DMMV.
//
// The tiles are float32 in shared memory, not f16: this path must match the DMMV (and the
// CPU reference) to float32 rounding, and it is the fallback on devices without cooperative
// matrix, where halving shared memory would buy a larger tile but cost that exactness.
// Shared memory: 4 * BK * ((BM + 1) + (BN + 1)) bytes; the defaults (128, 64, 32) use 24.3 KiB,
// inside the 32 KiB lavapipe offers and the 48 KiB of NVIDIA and AMD.
//
// The register loops carry [[unroll]] (their trip counts are constants after specialization)
// so that acc[], a[] and b[] stay in registers on any driver; the NVIDIA one unrolls them
// anyway (no change measured on an H200). The kk loop stays rolled: unrolled, it multiplied
// lavapipe's pipeline compile time (the matmul tests went from 13 s to 90 s of CPU).
//
// Thread t owns rows (t % (BM/TM)) + i * (BM/TM) and tokens (t / (BM/TM)) + j * (BN/TN):
// strided, so the 32 threads of a warp read consecutive shared words (no bank conflicts) and
// write consecutive y rows. Limits: one shared tile (the next step waits in registers, not in
// a second shared buffer), so a barrier pair per BK step; element indices into the weights
// are 32-bit (an F32 slice of at most 16 GiB, far beyond any binding range).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

layout(constant_id = 0) const uint BM = 128;     // weight rows per workgroup
layout(constant_id = 1) const uint BN = 64;      // tokens per workgroup
layout(constant_id = 2) const uint BK = 32;      // K step, a multiple of 8
layout(constant_id = 3) const uint TM = 8;       // rows per thread; BM % TM == 0
layout(constant_id = 4) const uint TN = 4;       // tokens per thread; BN % TN == 0
layout(local_size_x_id = 5) in;                  // (BM / TM) * (BN / TN) threads (spec id 5)
layout(constant_id = 6) const int ACCUMULATE = 0;  // 1: y += W x (fused residual add)

#include "matmul_tile_io.glsl"

// k-major, one float of padding per k so that the strided group stores do not collide in
// one bank (BM and BN are powers of two in practice).
shared float w_tile[BK * (BM + 1)];
shared float x_tile[BK * (BN + 1)];

float acc[TM * TN];

// Decodes the fetched registers of step k0 into the k-major tiles.
void store_tiles(uint k0) {
  [[unroll]] for (uint i = 0; i < W_PER_THREAD; ++i) {
    const uint g = w_group_of(i);
    if (g >= W_GROUPS) break;
    const uint r = w_group_row(g), kk = w_group_k(g);
    vec4 lo, hi;
    matmul_decode8(w_reg[i], k0 + kk, lo, hi);
    for (uint j = 0; j < 4; ++j) {
      w_tile[(kk + j) * (BM + 1) + r] = lo[j];
      w_tile[(kk + 4 + j) * (BM + 1) + r] = hi[j];
    }
  }
  [[unroll]] for (uint i = 0; i < X_PER_THREAD; ++i) {
    const uint v = x_vec_of(i);
    if (v >= X_VECS) break;
    const uint c = x_vec_token(v), kk = x_vec_k(v);
    for (uint j = 0; j < 4; ++j) x_tile[(kk + j) * (BN + 1) + c] = x_reg[i][j];
  }
}

void main() {
  const uint row0 = gl_WorkGroupID.y * BM;
  const uint col0 = gl_WorkGroupID.x * BN;
#ifdef MOE_MATMUL
  if (!moe_item_begin(col0)) return;  // uniform: the whole workgroup leaves before any barrier
#endif
  const uint tr = gl_LocalInvocationID.x % (BM / TM), tc = gl_LocalInvocationID.x / (BM / TM);
  [[unroll]] for (uint i = 0; i < TM * TN; ++i) acc[i] = 0.0;

  fetch_tiles(row0, col0, 0);
  for (uint k0 = 0; k0 < pc.cols; k0 += BK) {
    store_tiles(k0);
    barrier();
    if (k0 + BK < pc.cols) fetch_tiles(row0, col0, k0 + BK);  // in flight during the products
    for (uint kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
      [[unroll]] for (uint i = 0; i < TM; ++i) a[i] = w_tile[kk * (BM + 1) + tr + i * (BM / TM)];
      [[unroll]] for (uint j = 0; j < TN; ++j) b[j] = x_tile[kk * (BN + 1) + tc + j * (BN / TN)];
      [[unroll]] for (uint i = 0; i < TM; ++i) {
        [[unroll]] for (uint j = 0; j < TN; ++j) acc[i * TN + j] += a[i] * b[j];
      }
    }
    barrier();
  }

  [[unroll]] for (uint i = 0; i < TM; ++i) {
    [[unroll]] for (uint j = 0; j < TN; ++j) {
      matmul_store(row0 + tr + i * (BM / TM), col0 + tc + j * (BN / TN), acc[i * TN + j],
                   ACCUMULATE != 0);
    }
  }
}
