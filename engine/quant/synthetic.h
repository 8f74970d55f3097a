// Deterministic synthetic weights: valid blocks of every format, never all zeros, different
// per seed and per tensor, with dequantized values of roughly a requested standard deviation.
// Every byte is a function of (seed, tensor id, block index) through the 32-bit integer hash in
// synth_hash.h, so kernels/synth_weights.comp generates the same bytes on the device (a 20 GB
// model is never built on the host) and the CPU can regenerate any block to check it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/quant/weight_format.h"

namespace pb {

// The per-tensor scale of synthetic weights, computed once on the CPU; the GPU only ever sees
// these bits and does integer work on them, so no float rounding can differ.
struct SyntheticScale {
  uint32_t scale_bits = 0;  // f16 bits: the power-of-two step of F32/F16 values, or the base
                            // super-block scale d of Q8_0/Q4_K/Q6_K blocks (jittered per block)
};

// The scale that gives dequantized weights a standard deviation near `target_std`: within a
// few percent for the block formats (more for targets below ~3e-3, where the f16 base scale
// is a coarse subnormal), within a factor of sqrt(2) for F32/F16, whose step is a power of two.
// Throws UsageError when target_std is not a positive finite number.
SyntheticScale synthetic_scale(WeightFormat format, float target_std);

// Writes blocks [first_block, first_block + block_count) of a tensor, counting blocks from the
// start of the tensor in row-major order (F32/F16: one weight per block). `out` must hold
// exactly block_count * block_bytes(format) bytes. Throws UsageError on a size mismatch or when
// the blocks do not fit the 32-bit block counter.
void generate_synthetic_blocks(WeightFormat format, uint32_t seed, uint32_t tensor_id,
                               uint64_t first_block, uint64_t block_count, SyntheticScale scale,
                               std::span<uint8_t> out);

// A whole row-major tensor of rows x cols weights into `out` (tensor_bytes(format, rows, cols)
// long), with the scale from synthetic_scale(format, target_std).
void generate_synthetic(WeightFormat format, uint32_t seed, uint32_t tensor_id, uint64_t rows,
                        uint64_t cols, float target_std, std::span<uint8_t> out);

// Small float vectors (norm weights, biases), generated on the CPU: center + k / 1024 with k a
// hashed integer in [-spread * 1024, spread * 1024], so every value is exactly dyadic.
std::vector<float> synthetic_f32_values(uint32_t seed, uint32_t tensor_id, size_t count,
                                        float center, float spread);

}  // namespace pb
