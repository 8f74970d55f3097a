// The RMSNorm moved into the residual projection before it (norm_placement: producer) and its
// division by the RMS moved into the projections after it:
//   dmmv_intdot_<fmt>_norm  y += W x, and the norm's int8 input: y * w quantized in blocks of
//                           32 and each block's sum of y^2 (kernels/include/dmmv_intdot_norm_epilogue.glsl)
//   dmmv_intdot_<fmt>_rms   W' xq / rms(y), rms from those block sums (dmmv_intdot_input_rms.glsl)
// Against the references: y as the integer reference's y + W x (the DMMV test's bound); the
// int8 input bit for bit what the CPU quantizer makes of the GPU's y * w; the block sums of y^2
// within float rounding; the consumer within the DMMV bound times 1 / rms; and the two together
// against the unfused float path (y, RMSNorm, W') within the int8 activations' own bound. The
// builders refuse what the kernels cannot do.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "engine/ops/dmmv_intdot_op.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "engine/reference/dmmv_ref.h"
#include "engine/reference/glu_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/intdot_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"
#include "tests/support/random_matrix.h"

namespace pb::test {
namespace {

constexpr float kEps = 1e-5f;

struct FusionCase {
  WeightFormat format;
  uint32_t rows;  // of the producer: the norm's width, and the consumer's cols (a multiple of 256)
  uint32_t cols;  // of the producer
  uint32_t consumer_rows;
};

void PrintTo(const FusionCase& c, std::ostream* os) {
  *os << format_name(c.format) << " " << c.rows << "x" << c.cols << ", then " << c.consumer_rows << "x" << c.rows;
}

// Poisoned storage of a deferred norm's int8 input (quants, scales, block squares).
struct DeferredBuffer {
  explicit DeferredBuffer(uint32_t n)
      : limits(BindingLimits::of(device().info())),
        bytes(deferred_norm_bytes(n, limits)),
        buffer(upload_vector(std::vector<uint8_t>(bytes, 0xA5), "deferred norm")),
        view(deferred_norm_in(TensorView::whole(buffer), n, kEps, limits)) {}
  BindingLimits limits;
  uint64_t bytes;
  Buffer buffer;
  QuantizedX view;
};

// The fused kernels exist where the integer-dot path does.
class IntdotGpuTest : public GpuTest {
 protected:
  void SetUp() override {
    if (!build_info().has_intdot_shaders || !device().info().caps.integer_dot_product) {
      GTEST_SKIP() << "no integer-dot path here (dmmv_intdot_test asserts the builders refuse it)";
    }
  }
};

class DmmvNormFusionTest : public IntdotGpuTest, public ::testing::WithParamInterface<FusionCase> {};

// The producer of `p` on random inputs, its outputs against the references. With add_one the
// norm multiplies by 1 + w (Gemma's and Qwen3.5's stored weights, centred on 0).
void check_producer(const FusionCase& p, bool add_one) {
  std::mt19937 rng(99 + p.rows + p.cols);
  const Matrix w = random_matrix(p.format, p.rows, p.cols, rng);
  const std::vector<float> x = random_columns(p.cols, 1, p.cols, -1.0f, 1.0f, rng);
  const std::vector<float> y_old = random_columns(p.rows, 1, p.rows, -2.0f, 2.0f, rng);
  const float low = add_one ? -0.5f : 0.5f;  // stored weights centred on 0 where the norm adds the 1
  const std::vector<float> weight = random_columns(p.rows, 1, p.rows, low, low + 1.0f, rng);

  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "w");
  Buffer xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y_old, "y");
  Buffer gb = upload_floats(weight, "norm weight");
  QuantizedBuffer qx(p.cols, 1);
  DeferredBuffer out(p.rows);
  const ProjectionProblem problem{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                                  p.rows, p.cols, 1, p.cols, p.rows, true};
  std::vector<Op> ops = quantize_x_ops(problem, qx.view, qx.limits);
  ops.push_back(
      dmmv_intdot_norm_op(problem, qx.view, qx.limits, NormEpilogue{TensorView::whole(gb), out.view, add_one}));
  run_ops(ops, BarrierPolicy::Ledger);
  const std::vector<float> y = download_floats(yb, p.rows);

  const ref::QuantizedXHost xq = ref::quantize_x(x, p.cols, 1, p.cols);
  std::vector<float> expected = y_old;
  ref::dmmv_intdot(p.format, w.bytes, p.rows, p.cols, xq, expected, p.rows, true);
  const std::vector<float> xhat = dequantized_x(xq);
  for (uint32_t r = 0; r < p.rows; ++r) {
    ASSERT_NEAR(y[r], expected[r], 5e-7 * magnitude(w, p.cols, r, xhat.data()) + 1e-6 * (1 + std::fabs(y_old[r])))
        << "row " << r;
  }
  // The norm's input is y * w (or y * (1 + w)), quantized as quantize_x would, from the y the
  // GPU wrote.
  std::vector<float> v(p.rows);
  for (uint32_t i = 0; i < p.rows; ++i) v[i] = y[i] * (add_one ? 1.0f + weight[i] : weight[i]);
  const std::vector<uint8_t> stored = download_vector<uint8_t>(out.buffer, out.bytes);
  expect_cpu_quantization(stored, out.view, v, p.rows, 1, p.rows);
  const std::vector<float> squares = download_floats(out.buffer, out.bytes / 4);
  const size_t squares_at = out.view.rms->block_squares.offset / 4;
  for (uint32_t b = 0; b < p.rows / 32; ++b) {
    double sum = 0;
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) sum += double(y[i]) * y[i];
    ASSERT_NEAR(squares[squares_at + b], sum, 1e-5 * sum) << "block " << b;
  }
}

TEST_P(DmmvNormFusionTest, ProducerAddsIntoYAndWritesTheNormsInt8Input) { check_producer(GetParam(), false); }

TEST_P(DmmvNormFusionTest, ProducerAppliesOnePlusTheStoredWeight) { check_producer(GetParam(), true); }

TEST_P(DmmvNormFusionTest, ConsumerDividesByTheRmsAndChainMatchesTheUnfusedNorm) {
  const FusionCase& p = GetParam();
  std::mt19937 rng(7 + p.rows + p.consumer_rows);
  const Matrix w = random_matrix(p.format, p.rows, p.cols, rng);
  const Matrix w2 = random_matrix(p.format, p.consumer_rows, p.rows, rng);
  const std::vector<float> x = random_columns(p.cols, 1, p.cols, -1.0f, 1.0f, rng);
  const std::vector<float> y_old = random_columns(p.rows, 1, p.rows, -2.0f, 2.0f, rng);
  const std::vector<float> weight = random_columns(p.rows, 1, p.rows, 0.5f, 1.5f, rng);

  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "w");
  Buffer w2b = upload_weights(p.format, p.rows, w2.bytes, "w2");
  Buffer xb = upload_floats(x, "x");
  Buffer yb = upload_floats(y_old, "y");
  Buffer gb = upload_floats(weight, "norm weight");
  Buffer zb = upload_floats(std::vector<float>(p.consumer_rows, kPadding), "z");
  QuantizedBuffer qx(p.cols, 1);
  DeferredBuffer mid(p.rows);
  const ProjectionProblem producer{p.format, TensorView::whole(wb), TensorView::whole(xb), TensorView::whole(yb),
                                   p.rows, p.cols, 1, p.cols, p.rows, true};
  // The consumer's x is the norm's output, which is never written: only its int8 form is read.
  const ProjectionProblem consumer{p.format, TensorView::whole(w2b), TensorView::whole(gb), TensorView::whole(zb),
                                   p.consumer_rows, p.rows, 1, p.rows, p.consumer_rows, false};
  std::vector<Op> ops = quantize_x_ops(producer, qx.view, qx.limits);
  ops.push_back(dmmv_intdot_norm_op(producer, qx.view, qx.limits, NormEpilogue{TensorView::whole(gb), mid.view}));
  for (const Op& op : dmmv_intdot_ops(consumer, mid.view, mid.limits)) ops.push_back(op);
  run_ops(ops, BarrierPolicy::Ledger);
  const std::vector<float> y = download_floats(yb, p.rows);
  const std::vector<float> z = download_floats(zb, p.consumer_rows);

  // Against the integer reference of the consumer on what the GPU quantized, divided by the
  // RMS of the y the GPU wrote.
  std::vector<float> v(p.rows);
  double sum_sq = 0;
  for (uint32_t i = 0; i < p.rows; ++i) {
    v[i] = y[i] * weight[i];
    sum_sq += double(y[i]) * y[i];
  }
  const double inv_rms = 1.0 / std::sqrt(sum_sq / p.rows + kEps);
  const ref::QuantizedXHost vq = ref::quantize_x(v, p.rows, 1, p.rows);
  std::vector<float> integer(p.consumer_rows, 0.0f);
  ref::dmmv_intdot(p.format, w2.bytes, p.consumer_rows, p.rows, vq, integer, p.consumer_rows, false);
  const std::vector<float> vhat = dequantized_x(vq);
  // The unfused float path: RMSNorm of y, then W2 on floats.
  std::vector<float> normed(p.rows), floating(p.consumer_rows, 0.0f);
  for (uint32_t i = 0; i < p.rows; ++i) normed[i] = float(y[i] * inv_rms) * weight[i];
  ref::dmmv(p.format, w2.bytes, p.consumer_rows, p.rows, normed, 1, p.rows, floating, p.consumer_rows, false);
  const ref::QuantizedXHost nq = ref::quantize_x(normed, p.rows, 1, p.rows);
  for (uint32_t r = 0; r < p.consumer_rows; ++r) {
    const double m_hat = magnitude(w2, p.rows, r, vhat.data()) * inv_rms;
    ASSERT_NEAR(z[r], integer[r] * inv_rms, 5e-7 * m_hat + 1e-6 + 2e-6 * std::fabs(integer[r] * inv_rms))
        << "integer reference, row " << r;
    const std::span<const float> row(&w2.dequantized[size_t(r) * p.rows], p.rows);
    const double bound = ref::intdot_quantization_bound(row, nq, 0);
    ASSERT_NEAR(z[r], floating[r], 1.01 * bound + 2e-5 * magnitude(w2, p.rows, r, normed.data()) + 1e-6)
        << "unfused float path, row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, DmmvNormFusionTest,
                         ::testing::Values(FusionCase{WeightFormat::Q4_K, 256, 512, 40},
                                           FusionCase{WeightFormat::Q4_K, 512, 1280, 37},  // the loop's tail
                                           FusionCase{WeightFormat::Q8_0, 256, 512, 21},
                                           FusionCase{WeightFormat::Q8_0, 512, 768, 8},
                                           FusionCase{WeightFormat::Q6_K, 256, 512, 40},
                                           FusionCase{WeightFormat::Q6_K, 512, 256, 13}));

// The GLU moved into the stacked gate and up projection (glu_placement: producer): act =
// glu(gate, up) in int8 blocks, from plain int8 inputs and from a deferred norm's (divided by the
// RMS first), with SiLU and with GELU. Against the float GLU of the integer reference's gate and
// up: each dequantized act within half a step of its block (the GPU's gate and up differ from the
// reference's in float rounding only, so an act may land on the neighbouring quant) plus 1e-4 of
// the block's largest. A swapped gate and up, a wrong row pairing or a missing RMS is far outside.
struct GluCase {
  WeightFormat format;
  uint32_t n;     // gate rows, up rows, act elements
  uint32_t cols;  // the input's
  bool deferred;  // the input is a deferred norm's
  GluActivation activation;
};

void PrintTo(const GluCase& c, std::ostream* os) {
  *os << format_name(c.format) << " 2x" << c.n << "x" << c.cols << (c.deferred ? " from a deferred norm" : "")
      << (c.activation == GluActivation::GeluTanh ? " gelu" : " silu");
}

class DmmvGluFusionTest : public IntdotGpuTest, public ::testing::WithParamInterface<GluCase> {};

TEST_P(DmmvGluFusionTest, WritesTheInt8FormOfTheGluOfGateAndUp) {
  const GluCase& p = GetParam();
  std::mt19937 rng(5 + p.n + p.cols + p.deferred);
  const Matrix w = random_matrix(p.format, 2 * p.n, p.cols, rng);
  std::vector<float> x = random_columns(p.cols, 1, p.cols, -1.0f, 1.0f, rng);
  // The input's int8 form on the CPU: of x itself, or of x (as the deferred norm's x * w, w = 1)
  // with the block squares of some other y, whose RMS the kernel must divide by.
  const ref::QuantizedXHost xq = ref::quantize_x(x, p.cols, 1, p.cols);
  const BindingLimits limits = BindingLimits::of(device().info());
  const ProjectionInput in = upload_projection_input(xq, p.cols, p.deferred, kEps, rng);
  const QuantizedX& input = in.view;
  const double inv_rms = in.inv_rms;
  Buffer wb = upload_weights(p.format, p.cols, w.bytes, "gate and up");
  Buffer yb = upload_floats(std::vector<float>(2 * p.n, kPadding), "gate and up out");
  QuantizedBuffer act(p.n, 1);
  const ProjectionProblem problem{p.format, TensorView::whole(wb), TensorView::whole(in.buffer), TensorView::whole(yb),
                                  2 * p.n, p.cols, 1, p.cols, 2 * p.n, false};
  run_ops(std::vector<Op>{dmmv_intdot_glu_op(problem, input, limits, GluEpilogue{p.activation, act.view})},
          BarrierPolicy::Ledger);
  const std::vector<uint8_t> stored = act.download();

  std::vector<float> gate_up(2 * p.n, 0.0f), expected(p.n);
  ref::dmmv_intdot(p.format, w.bytes, 2 * p.n, p.cols, xq, gate_up, 2 * p.n, false);
  for (float& v : gate_up) v = float(v * inv_rms);
  ref::glu(p.activation == GluActivation::GeluTanh, std::span(gate_up).first(p.n), p.n, std::span(gate_up).last(p.n),
           p.n, expected, p.n, p.n, 1);
  for (uint32_t b = 0; b < p.n / 32; ++b) {
    float d;
    std::memcpy(&d, stored.data() + act.view.scales.offset + 8 * b, 4);
    float amax = 0;
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) amax = std::max(amax, std::fabs(expected[i]));
    ASSERT_NEAR(d, amax / 127, 2e-3 * amax / 127) << "block " << b;
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) {
      ASSERT_NEAR(int8_t(stored[i]) * d, expected[i], 0.5001 * d + 1e-4 * amax) << "act " << i;
    }
  }
  EXPECT_EQ(download_floats(yb, 2 * p.n), std::vector<float>(2 * p.n, kPadding)) << "gate and up are not written";
}

INSTANTIATE_TEST_SUITE_P(Formats, DmmvGluFusionTest,
                         ::testing::Values(GluCase{WeightFormat::Q4_K, 64, 512, false, GluActivation::Silu},
                                           GluCase{WeightFormat::Q4_K, 96, 1280, true, GluActivation::Silu},
                                           GluCase{WeightFormat::Q8_0, 64, 768, true, GluActivation::GeluTanh},
                                           GluCase{WeightFormat::Q6_K, 32, 256, false, GluActivation::GeluTanh},
                                           GluCase{WeightFormat::Q6_K, 64, 512, true, GluActivation::Silu}));

class DmmvNormFusionRefusals : public GpuTest {};

TEST_F(DmmvNormFusionRefusals, WhatTheKernelsCannotDo) {
  if (!build_info().has_intdot_shaders) {
    EXPECT_EQ(find_kernel("dmmv_intdot_q4_k_norm"), nullptr);
    EXPECT_EQ(find_kernel("dmmv_intdot_q4_k_rms"), nullptr);
    return;
  }
  Buffer any(device(), 1 << 20, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView all = TensorView::whole(any);
  const auto problem = [&](uint32_t rows, uint32_t ncols, bool accumulate) {
    return ProjectionProblem{WeightFormat::Q4_K, all, all, all, rows, 256, ncols, 256, rows, accumulate};
  };
  const QuantizedX in = quantized_x_in(all, 256, 2, limits);
  const QuantizedX out = deferred_norm_in(all.slice(1 << 19, 1 << 16), 64, kEps, limits);
  const NormEpilogue norm{all, out};
  EXPECT_NO_THROW(dmmv_intdot_norm_op(problem(64, 1, true), in, limits, norm));
  EXPECT_THROW(dmmv_intdot_norm_op(problem(64, 2, true), in, limits, norm), UsageError);   // two columns
  EXPECT_THROW(dmmv_intdot_norm_op(problem(64, 1, false), in, limits, norm), UsageError);  // no residual
  EXPECT_THROW(dmmv_intdot_norm_op(problem(48, 1, true), in, limits,
                                   NormEpilogue{all, deferred_norm_in(all, 48, kEps, limits)}),
               UsageError);  // rows not whole blocks
  QuantizedX plain = out;
  plain.rms.reset();
  EXPECT_THROW(dmmv_intdot_norm_op(problem(64, 1, true), in, limits, NormEpilogue{all, plain}), UsageError);
  BindingLimits small = limits;
  small.max_range = row_bytes(WeightFormat::Q4_K, 256) * 32;  // the weights in two bindings
  EXPECT_THROW(dmmv_intdot_norm_op(problem(64, 1, true), in, small, norm), UsageError);
  // A deferred input is read one column at a time, through the format's first chunk.
  const QuantizedX deferred = deferred_norm_in(all, 256, kEps, limits);
  EXPECT_NO_THROW(dmmv_intdot_ops(problem(64, 1, false), deferred, limits));
  DmmvIntdotTuning sub_blocks;
  sub_blocks.chunk = 32;
  EXPECT_THROW(dmmv_intdot_ops(problem(64, 1, false), deferred, limits, sub_blocks), UsageError);
  // The GLU: one column, gate and up of whole blocks each, no accumulate, an output of rows / 2.
  const GluEpilogue glu{GluActivation::Silu, quantized_x_in(all.slice(1 << 19, 1 << 16), 32, 1, limits)};
  EXPECT_NO_THROW(dmmv_intdot_glu_op(problem(64, 1, false), in, limits, glu));
  EXPECT_NO_THROW(dmmv_intdot_glu_op(problem(64, 1, false), deferred, limits, glu));
  EXPECT_THROW(dmmv_intdot_glu_op(problem(64, 2, false), in, limits, glu), UsageError);
  EXPECT_THROW(dmmv_intdot_glu_op(problem(64, 1, true), in, limits, glu), UsageError);
  EXPECT_THROW(dmmv_intdot_glu_op(problem(96, 1, false), in, limits, glu), UsageError);  // 48 + 48
  EXPECT_THROW(dmmv_intdot_glu_op(problem(64, 1, false), in, limits, GluEpilogue{GluActivation::Silu, out}),
               UsageError);  // an output that names squares
}

}  // namespace
}  // namespace pb::test
