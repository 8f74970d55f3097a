// CPU reference of sigmoid gating in place, in float64.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

// y[c][i] *= sigmoid(g[c][i]), or sigmoid(g[c * g_stride]) for the whole column when
// `broadcast` is set.
void sigmoid_mul(std::span<const float> g, uint32_t g_stride, bool broadcast, std::span<float> y,
                 uint32_t y_stride, uint32_t n, uint32_t ncols);

}  // namespace pb::ref
