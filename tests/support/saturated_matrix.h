// A weight matrix whose every quant is its format's largest (Q8_0 127, Q4_K 15, Q6_K 63, that
// is 31 after its offset of 32), with the largest sub-block scales and no mins. Against
// activations of one sign every integer-dot chunk sum is then the largest a kernel meets:
// 32 * 127 * 127 per Q8_0 block, 32 * 15 * 127 per Q4_K sub-block and 16 times that where the
// high nibbles dot in place. The integer-dot kernels turn those sums into floats through the
// bits of 1.5 * 2^23 (kernels/include/dmmv_intdot_common.glsl), which is exact only while a sum
// keeps that float in its binade; random weights never come near.
#pragma once

#include <cstdint>

#include "engine/quant/weight_format.h"
#include "tests/support/random_matrix.h"

namespace pb::test {

// rows x cols in Q8_0, Q4_K or Q6_K, with its dequantized values.
Matrix saturated_matrix(WeightFormat format, uint32_t rows, uint32_t cols);

}  // namespace pb::test
