// Block quantizers for the k-quant formats (Q4_K, Q6_K): a per-sub-block search for the scale
// (and min) that minimizes a weighted squared error, then 6- or 8-bit quantization of those
// scales against one f16 super-block scale. Internal to quantize.cpp.
#pragma once

#include "engine/quant/blocks.h"

namespace pb {

void quantize_block_q4_k(const float* x, BlockQ4_K& out);  // x: 256 values
void quantize_block_q6_k(const float* x, BlockQ6_K& out);  // x: 256 values

}  // namespace pb
