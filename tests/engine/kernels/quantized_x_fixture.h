// Shared pieces of the tests of kernels that write int8 activations (quantizing producers,
// attention that quantizes its output): poisoned quantized-x storage on the device, and the
// check that its bytes are what the CPU quantizer (ref::quantize_x) makes of a float output;
// and a projection's int8 input uploaded from a CPU quantization.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/ops/quantize_x_op.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/support/random_matrix.h"

namespace pb::test {

// Quantized storage for ncols columns of n, poisoned so an unwritten byte shows.
struct QuantizedBuffer {
  QuantizedBuffer(uint32_t n, uint32_t ncols)
      : limits(BindingLimits::of(device().info())),
        bytes(quantized_x_bytes(n, ncols, limits)),
        buffer(upload_vector(std::vector<uint8_t>(bytes, 0xA5), "qx")),
        view(quantized_x_in(TensorView::whole(buffer), n, ncols, limits)) {}
  std::vector<uint8_t> download() const { return download_vector<uint8_t>(buffer, bytes); }
  BindingLimits limits;
  uint64_t bytes;
  Buffer buffer;
  QuantizedX view;
};

// Bytes of the quantized form of `y` (ncols columns of n at y_stride) as the CPU quantizer
// gives it, in QuantizedX's layout.
inline void expect_cpu_quantization(const std::vector<uint8_t>& gpu, const QuantizedX& layout,
                                    const std::vector<float>& y, uint32_t n, uint32_t ncols, uint32_t y_stride) {
  const ref::QuantizedXHost cpu = ref::quantize_x(y, n, ncols, y_stride);
  for (size_t k = 0; k < cpu.quants.size(); ++k) ASSERT_EQ(int8_t(gpu[k]), cpu.quants[k]) << "quant " << k;
  for (size_t i = 0; i < cpu.scales.size(); ++i) {
    float v;
    std::memcpy(&v, gpu.data() + layout.scales.offset + 4 * i, 4);
    ASSERT_EQ(bits_of(v), bits_of(cpu.scales[i])) << (i % 2 ? "block sum " : "scale ") << i / 2;
  }
}

// A projection's one-column int8 input on the device, from a CPU quantization: plain, or with
// `deferred` an RMSNorm's whose division is left to the reader (norm_placement: producer),
// with random block squares standing for another vector's, whose 1 / RMS is inv_rms.
struct ProjectionInput {
  Buffer buffer;
  QuantizedX view;
  double inv_rms = 1.0;
};

inline ProjectionInput upload_projection_input(const ref::QuantizedXHost& xq, uint32_t cols, bool deferred, float eps,
                                               std::mt19937& rng) {
  const BindingLimits limits = BindingLimits::of(device().info());
  const uint64_t bytes = deferred ? deferred_norm_bytes(cols, limits) : quantized_x_bytes(cols, 1, limits);
  ProjectionInput in{upload_vector(std::vector<uint8_t>(bytes, 0), "input"), {}, 1.0};
  in.view = deferred ? deferred_norm_in(TensorView::whole(in.buffer), cols, eps, limits)
                     : quantized_x_in(TensorView::whole(in.buffer), cols, 1, limits);
  transfer().upload_from<int8_t>(in.buffer, in.view.quants.offset, xq.quants);
  transfer().upload_from<float>(in.buffer, in.view.scales.offset, xq.scales);
  if (deferred) {
    const std::vector<float> squares = random_columns(cols / 32, 1, cols / 32, 5.0f, 20.0f, rng);
    double sum = 0;
    for (float v : squares) sum += v;
    in.inv_rms = 1.0 / std::sqrt(sum / cols + eps);
    transfer().upload_from<float>(in.buffer, in.view.rms->block_squares.offset, squares);
  }
  return in;
}

}  // namespace pb::test
