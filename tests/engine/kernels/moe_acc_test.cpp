// The MoE accumulation (moe_acc_op) against the CPU reference (the same sum in choice order;
// the GPU may fuse its multiply-adds, so within 1e-6 of the magnitudes summed), for decode and a
// chunk; and decode's form that also writes the RMSNorm after it (moe_acc_norm_op;
// norm_placement: producer): x bit for bit as moe_acc writes it, x * w quantized as the CPU
// quantizer does, and each block's sum of squares; and the builder's refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ops/moe_acc_op.h"
#include "engine/reference/moe_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/engine/kernels/moe_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct AccInputs {
  MoeShape shape;
  uint32_t n, ncols, out_stride, x_stride;
  std::vector<float> route_w, out, x;
};

AccInputs random_inputs(uint32_t n, uint32_t ncols, uint32_t top_k, std::mt19937& rng) {
  AccInputs in{MoeShape{16, top_k, 0, 0, true}, n, ncols, n + 8, n + 4, {}, {}, {}};
  in.route_w = random_columns(top_k, ncols, top_k, 0.0f, 1.0f, rng);
  in.out = random_columns(n, ncols * top_k, in.out_stride, -2.0f, 2.0f, rng);
  in.x = random_columns(n, ncols, in.x_stride, -1.0f, 1.0f, rng);
  return in;
}

// The inputs on the device: routing (route_w uploaded), out and x.
struct AccBuffers {
  RoutingBuffers rb;
  Buffer out, x;
  MoeAccProblem problem;
};

AccBuffers upload(const AccInputs& in) {
  AccBuffers b{make_routing(in.shape, in.ncols), upload_floats(in.out, "expert out"), upload_floats(in.x, "x"), {}};
  transfer().upload_from<float>(*b.rb.buffer, b.rb.routing.route_w.offset, in.route_w);
  b.problem = MoeAccProblem{TensorView::whole(b.out), TensorView::whole(b.x), in.shape, in.n, in.ncols,
                            in.out_stride, in.x_stride};
  return b;
}

// x after the accumulation, on the CPU, against what the GPU wrote.
void expect_reference_x(const AccInputs& in, const std::vector<float>& gpu) {
  std::vector<float> x = in.x;
  ref::moe_acc(in.route_w, in.shape.top_k, in.out, in.out_stride, x, in.x_stride, in.n, in.ncols);
  for (uint32_t c = 0; c < in.ncols; ++c) {
    for (uint32_t i = 0; i < in.n; ++i) {
      double magnitude = std::fabs(in.x[size_t(c) * in.x_stride + i]);
      for (uint32_t j = 0; j < in.shape.top_k; ++j) {
        const size_t a = size_t(c) * in.shape.top_k + j;
        magnitude += std::fabs(double(in.route_w[a]) * in.out[a * in.out_stride + i]);
      }
      const size_t at = size_t(c) * in.x_stride + i;
      ASSERT_NEAR(gpu[at], x[at], 1e-6 * magnitude) << "token " << c << " element " << i;
    }
  }
}

class MoeAccTest : public GpuTest {};

TEST_F(MoeAccTest, AddsTheWeightedExpertsBitForBit) {
  for (const uint32_t ncols : {1u, 5u}) {
    std::mt19937 rng(9 + ncols);
    const AccInputs in = random_inputs(320, ncols, 8, rng);
    AccBuffers b = upload(in);
    const Op op = moe_acc_op(b.problem, b.rb.routing);
    run_ops(std::span(&op, 1));
    expect_reference_x(in, download_floats(b.x, in.x.size()));
  }
}

TEST_F(MoeAccTest, DecodeFormWritesTheNextNormsInt8Input) {
  if (!build_info().has_intdot_shaders) {
    EXPECT_FALSE(has_moe_acc_norm_kernel());  // the refusal below then covers the builder
    return;
  }
  // add_one: the norm multiplies by 1 + w (Qwen3.5's stored weights, centred on 0).
  for (const auto& [n, add_one] : {std::pair{256u, false}, std::pair{2048u, false}, std::pair{2048u, true}}) {
    std::mt19937 rng(31 + n);
    const AccInputs in = random_inputs(n, 1, 8, rng);
    AccBuffers b = upload(in);
    std::vector<float> weight(n);
    std::uniform_real_distribution<float> stored(add_one ? -0.5f : 0.5f, add_one ? 0.5f : 1.5f);
    for (auto& w : weight) w = stored(rng);
    Buffer wb = upload_floats(weight, "norm weight");
    AccBuffers plain = upload(in);  // what moe_acc writes into x, for the bitwise comparison
    const Op acc = moe_acc_op(plain.problem, plain.rb.routing);
    run_ops(std::span(&acc, 1));
    const std::vector<float> expected = download_floats(plain.x, in.x.size());
    const BindingLimits limits = BindingLimits::of(device().info());
    const uint64_t out_bytes = deferred_norm_bytes(n, limits);
    Buffer ob = upload_vector(std::vector<uint8_t>(out_bytes, 0xA5), "deferred norm");  // poisoned
    const QuantizedX out = deferred_norm_in(TensorView::whole(ob), n, 1e-5f, limits);
    const Op op = moe_acc_norm_op(b.problem, b.rb.routing, NormEpilogue{TensorView::whole(wb), out, add_one});
    run_ops(std::span(&op, 1));

    const std::vector<float> x = download_floats(b.x, in.x.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits_of(x[i]), bits_of(expected[i])) << "n " << n << " x " << i;
    expect_reference_x(in, x);
    std::vector<float> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = x[i] * (add_one ? 1.0f + weight[i] : weight[i]);
    const std::vector<uint8_t> quants = download_vector<uint8_t>(ob, out_bytes);
    expect_cpu_quantization(quants, out, v, n, 1, n);
    const std::vector<float> words = download_floats(ob, out_bytes / 4);
    const size_t squares_at = out.rms->block_squares.offset / 4;
    for (uint32_t blk = 0; blk < n / 32; ++blk) {
      double sum = 0;
      for (uint32_t i = 32 * blk; i < 32 * blk + 32; ++i) sum += double(x[i]) * x[i];
      ASSERT_NEAR(words[squares_at + blk], sum, 1e-6 * sum) << "n " << n << " block " << blk;
    }
  }
}

TEST_F(MoeAccTest, TheDecodeFormRefusesWhatItCannotWrite) {
  std::mt19937 rng(3);
  AccInputs in = random_inputs(256, 2, 4, rng);
  AccBuffers b = upload(in);
  const BindingLimits limits = BindingLimits::of(device().info());
  Buffer any(device(), 1 << 16, MemoryUse::Device, "any");
  const NormEpilogue norm{TensorView::whole(any), deferred_norm_in(TensorView::whole(any), 256, 1e-5f, limits)};
  EXPECT_THROW(moe_acc_norm_op(b.problem, b.rb.routing, norm), UsageError);  // two tokens
  b.problem.ncols = 1;
  if (!has_moe_acc_norm_kernel()) {
    EXPECT_THROW(moe_acc_norm_op(b.problem, b.rb.routing, norm), UsageError);
    return;
  }
  EXPECT_NO_THROW(moe_acc_norm_op(b.problem, b.rb.routing, norm));
  const NormEpilogue plain{TensorView::whole(any), quantized_x_in(TensorView::whole(any), 256, 1, limits)};
  EXPECT_THROW(moe_acc_norm_op(b.problem, b.rb.routing, plain), UsageError);  // no block squares
  b.problem.n = 240;
  EXPECT_THROW(moe_acc_norm_op(b.problem, b.rb.routing, norm), UsageError);  // not whole blocks
}

}  // namespace
}  // namespace pb::test
