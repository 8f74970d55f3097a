// CPU reference of the FFN's gated activation, in float64.
#pragma once

#include <cstdint>
#include <span>

namespace pb::ref {

// out[c][i] = act(gate[c][i]) * up[c][i]; act is SiLU, or the tanh-approximated GELU when
// `gelu_tanh` is set.
void glu(bool gelu_tanh, std::span<const float> gate, uint32_t gate_stride,
         std::span<const float> up, uint32_t up_stride, std::span<float> out, uint32_t out_stride,
         uint32_t n, uint32_t ncols);

}  // namespace pb::ref
