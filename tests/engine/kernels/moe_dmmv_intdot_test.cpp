// The experts' integer-dot DMMV (quantize_x + moe_dmmv_intdot_<fmt>) against the CPU reference
// of the expert DMMV on the activations the quantization stands for (ref::quantize_x, then
// back to floats): the shared check of moe_projection_check.h with the tolerance of the float
// expert DMMV, |gpu - ref| <= 2e-5 sum_k |w_k xhat_k| + 1e-6, so a wrong column, expert, row
// or scale fails it. Q4_K, Q8_0 and Q6_K; gate/up (input column = the token) and down (= the
// assignment); decode and a 13-token prefill whose experts take several passes (of one
// assignment, the engine's, and of 4 and 8); rows that are not a multiple of the workgroup's;
// expert slices; unselected experts NaN.
// Then decode's routing, gate and up with the SwiGLU in one op (moe_dmmv_intdot_glu_op): the
// routes and work list it writes against the reference top-k and grouping, and act's int8 form
// against silu(gate) * up of the reference, within half a quantization step.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/ops/moe_dmmv_intdot_op.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "engine/reference/glu_ref.h"
#include "engine/reference/moe_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/intdot_fixture.h"
#include "tests/engine/kernels/moe_projection_check.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct MoeIntdotCase {
  WeightFormat format;
  MoeInput input;
  uint32_t experts, top_k, ncols, pool;  // routes drawn from the first `pool` experts
  uint32_t rows, cols;
  uint32_t slice_experts = 0;    // > 0: a binding range of this many experts' weights
  DmmvIntdotTuning tuning = {};  // zeros: the engine's shape
};

void PrintTo(const MoeIntdotCase& c, std::ostream* os) {
  *os << format_name(c.format) << (c.input == MoeInput::Token ? " gate/up" : " down") << " E=" << c.experts
      << " K=" << c.top_k << " C=" << c.ncols << " pool=" << c.pool << " " << c.rows << "x" << c.cols;
  if (c.slice_experts) *os << " slices of " << c.slice_experts;
  *os << " threads " << c.tuning.threads << " rows " << c.tuning.rows << " unroll " << c.tuning.unroll;
  if (c.tuning.num_cols) *os << " passes of " << c.tuning.num_cols;
  if (c.tuning.lanes) *os << " teams of " << c.tuning.lanes;
}

// The activations d * q that quantize_x writes for x's columns, at x's stride.
std::vector<float> quantized_as_floats(const std::vector<float>& x, uint32_t cols, uint32_t ncols, uint32_t stride) {
  const std::vector<float> packed = dequantized_x(ref::quantize_x(x, cols, ncols, stride));
  std::vector<float> out = x;
  for (uint32_t c = 0; c < ncols; ++c) {
    std::copy_n(packed.begin() + size_t(c) * cols, cols, out.begin() + size_t(c) * stride);
  }
  return out;
}

class MoeDmmvIntdotTest : public GpuTest, public ::testing::WithParamInterface<MoeIntdotCase> {};

TEST_P(MoeDmmvIntdotTest, MatchesTheReferenceOnTheQuantizedActivations) {
  const MoeIntdotCase& p = GetParam();
  const char* name = moe_dmmv_intdot_kernel_name(p.format);
  ASSERT_NE(name, nullptr);
  ASSERT_EQ(find_kernel(name) != nullptr, build_info().has_intdot_shaders);
  if (!build_info().has_intdot_shaders || !device().info().caps.integer_dot_product) {
    EXPECT_FALSE(moe_dmmv_intdot_supported(device().info(), p.format));  // the engine must not choose it
    return;
  }
  ASSERT_TRUE(moe_dmmv_intdot_supported(device().info(), p.format));
  std::optional<Buffer> quantized;  // lives until the check has run the ops
  const std::vector<Op> ops = check_moe_projection(
      {p.format, p.input, p.experts, p.top_k, p.ncols, p.pool, p.rows, p.cols, p.slice_experts},
      [&](const MoeDmmvProblem& problem, const MoeRouting& routing, const BindingLimits& limits) {
        const uint32_t x_cols = problem.input == MoeInput::Token ? problem.ncols : problem.ncols * p.top_k;
        quantized.emplace(device(), quantized_x_bytes(p.cols, x_cols, limits), MemoryUse::Device, "xq");
        const QuantizedX qx = quantized_x_in(TensorView::whole(*quantized), p.cols, x_cols, limits);
        const ProjectionProblem source{p.format, problem.weights, problem.x, problem.y, problem.rows,
                                       p.cols,   x_cols,          problem.x_stride, problem.y_stride, false};
        std::vector<Op> ops = quantize_x_ops(source, qx, limits);
        const std::vector<Op> experts = moe_dmmv_intdot_ops(problem, qx, routing, limits, p.tuning);
        ops.insert(ops.end(), experts.begin(), experts.end());
        return ops;
      },
      2e-5, quantized_as_floats);
  if (p.slice_experts) {
    EXPECT_EQ(ops.size(), 1 + (p.experts + p.slice_experts - 1) / p.slice_experts);
  }
}

// The engine's shape with passes of `n` assignments (the benchmarks' sweep runs them).
DmmvIntdotTuning passes_of(uint32_t n) {
  DmmvIntdotTuning t;
  t.num_cols = n;
  return t;
}

std::vector<MoeIntdotCase> cases() {
  std::vector<MoeIntdotCase> list;
  for (WeightFormat f : {WeightFormat::Q4_K, WeightFormat::Q8_0}) {
    list.push_back({f, MoeInput::Token, 16, 4, 1, 12, 21, 512});           // decode
    list.push_back({f, MoeInput::Assignment, 16, 4, 1, 12, 37, 256});      // decode's down
    list.push_back({f, MoeInput::Token, 8, 3, 13, 6, 37, 256});            // the engine's passes of 1
    list.push_back({f, MoeInput::Assignment, 8, 3, 13, 6, 37, 512});       // the same, 2 blocks
    list.push_back({f, MoeInput::Token, 8, 3, 13, 6, 37, 256, 0, passes_of(8)});
    list.push_back({f, MoeInput::Assignment, 8, 3, 13, 6, 37, 512, 0, passes_of(8)});
    list.push_back({f, MoeInput::Token, 8, 2, 3, 6, 19, 256, 0, passes_of(4)});  // one short
    list.push_back({f, MoeInput::Token, 16, 2, 6, 14, 40, 256, 3});        // expert slices
    list.push_back({f, MoeInput::Assignment, 16, 4, 1, 12, 21, 768, 0, {64, 4, 1, 0}});  // another shape
    // Row teams: narrower than a subgroup here and elsewhere (shuffles), and wider than
    // lavapipe's (its subgroups' sums through shared memory), with rows left over at the end.
    list.push_back({f, MoeInput::Assignment, 8, 3, 13, 6, 37, 512, 0, row_teams(32, 4, 1, 4)});
    list.push_back({f, MoeInput::Token, 8, 3, 13, 6, 37, 256, 0, row_teams(32, 2, 2, 8)});
    list.push_back({f, MoeInput::Assignment, 16, 4, 1, 12, 21, 768, 0, row_teams(64, 1, 1, 16)});
  }
  // Q6_K experts are whole groups of 8 rows (engine/quant/device_layout.h).
  list.push_back({WeightFormat::Q6_K, MoeInput::Token, 16, 4, 1, 12, 24, 512});
  list.push_back({WeightFormat::Q6_K, MoeInput::Assignment, 8, 3, 13, 6, 40, 256});
  list.push_back({WeightFormat::Q6_K, MoeInput::Token, 16, 2, 6, 14, 40, 256, 3});
  return list;
}

INSTANTIATE_TEST_SUITE_P(Formats, MoeDmmvIntdotTest, ::testing::ValuesIn(cases()));

// Decode's routing, gate and up with the SwiGLU: E experts of F rows each for gate, then for up,
// in one buffer; router logits that put the token's K routes among the first `pool` experts
// (the rest far below, and NaN in their weights).
// With `deferred`, the input is an RMSNorm's whose division is left to the op (norm_placement:
// producer): x's int8 form with the block squares of another vector, whose RMS gate and up are
// divided by.
struct GluCase {
  WeightFormat format;
  uint32_t experts, top_k, pool, rows, cols;
  bool deferred = false;
};

void PrintTo(const GluCase& c, std::ostream* os) {
  *os << format_name(c.format) << " E=" << c.experts << " K=" << c.top_k << " pool=" << c.pool << " " << c.rows
      << "x" << c.cols << (c.deferred ? " deferred norm" : "");
}

constexpr float kEps = 1e-6f;

class MoeGluIntdotTest : public GpuTest, public ::testing::WithParamInterface<GluCase> {};

TEST_P(MoeGluIntdotTest, WritesTheInt8FormOfTheSwigluOfGateAndUp) {
  const GluCase& p = GetParam();
  if (!moe_dmmv_intdot_supported(device().info(), p.format)) {  // the engine must not choose it
    EXPECT_FALSE(find_kernel(moe_dmmv_intdot_glu_kernel_name(p.format)) != nullptr &&
                 device().info().caps.integer_dot_product);
    return;
  }
  std::mt19937 rng(77 + p.rows + p.cols);
  const MoeShape shape{p.experts, p.top_k, 0, 0, true};
  std::vector<float> logits = random_columns(p.experts, 1, p.experts, -1.0f, 1.0f, rng);
  std::fill(logits.begin() + p.pool, logits.end(), -100.0f);
  std::vector<uint32_t> routes(p.top_k);
  std::vector<float> weights(p.top_k);
  ref::moe_topk(logits, p.experts, p.experts, p.top_k, true, 1, routes, weights);
  StackedExperts gate = random_experts(p.format, p.experts, p.rows, p.cols, 0.05f, rng);
  StackedExperts up = random_experts(p.format, p.experts, p.rows, p.cols, 0.05f, rng);
  poison_unselected(gate.bytes, p.experts, routes);
  poison_unselected(up.bytes, p.experts, routes);
  std::vector<uint8_t> both = gate.bytes;
  both.insert(both.end(), up.bytes.begin(), up.bytes.end());

  const BindingLimits limits = BindingLimits::of(device().info());
  const std::vector<float> x = random_columns(p.cols, 1, p.cols, -1.0f, 1.0f, rng);
  const ref::QuantizedXHost xq = ref::quantize_x(x, p.cols, 1, p.cols);
  const ProjectionInput in = upload_projection_input(xq, p.cols, p.deferred, kEps, rng);
  const QuantizedX& input = in.view;
  const double inv_rms = in.inv_rms;
  QuantizedBuffer act(p.rows, p.top_k);
  RoutingBuffers rb = make_routing(shape, 1);
  Buffer wb = upload_weights(p.format, p.cols, both, "gate and up experts");
  Buffer lb = upload_floats(logits, "router logits");
  const MoeDmmvProblem problem{p.format, TensorView::whole(wb), TensorView{}, TensorView{}, shape, p.rows, p.cols, 1,
                               p.cols,   p.rows,                MoeInput::Token};
  const Op op = moe_dmmv_intdot_glu_op(problem, TensorView::whole(wb), input, TensorView::whole(lb), rb.routing,
                                       limits, GluEpilogue{GluActivation::Silu, act.view});
  run_ops(std::span(&op, 1), BarrierPolicy::Ledger);
  const std::vector<uint8_t> stored = act.download();

  // The routing down and the accumulation read: what moe_topk_group writes.
  ASSERT_EQ(download_u32(rb.routing.route_e, p.top_k), routes);
  const auto gpu_w = transfer().download_as<float>(*rb.buffer, rb.routing.route_w.offset, p.top_k);
  for (uint32_t j = 0; j < p.top_k; ++j) ASSERT_NEAR(gpu_w[j], weights[j], 2e-5 * weights[j] + 1e-7) << "route " << j;
  expect_reference_work_list(shape, 1, routes, rb);

  const std::vector<float> xhat = dequantized_x(xq);
  std::vector<float> g(size_t(p.top_k) * p.rows), u(g.size()), expected(g.size());
  ref::moe_dmmv(p.format, gate.bytes, p.rows, p.cols, routes, p.top_k, false, xhat, p.cols, g, p.rows);
  ref::moe_dmmv(p.format, up.bytes, p.rows, p.cols, routes, p.top_k, false, xhat, p.cols, u, p.rows);
  for (float& v : g) v = float(v * inv_rms);
  for (float& v : u) v = float(v * inv_rms);
  ref::glu(false, g, p.rows, u, p.rows, expected, p.rows, p.rows, p.top_k);
  for (uint32_t b = 0; b < p.top_k * p.rows / 32; ++b) {
    float d;
    std::memcpy(&d, stored.data() + act.view.scales.offset + 8 * b, 4);
    float amax = 0;
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) amax = std::max(amax, std::fabs(expected[i]));
    ASSERT_NEAR(d, amax / 127, 2e-3 * amax / 127) << "block " << b << " (assignment " << 32 * b / p.rows << ")";
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) {
      ASSERT_NEAR(int8_t(stored[i]) * d, expected[i], 0.5001 * d + 1e-4 * amax) << "act " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, MoeGluIntdotTest,
                         ::testing::Values(GluCase{WeightFormat::Q4_K, 16, 4, 12, 64, 512},
                                           GluCase{WeightFormat::Q6_K, 8, 4, 8, 64, 512},
                                           GluCase{WeightFormat::Q4_K, 8, 8, 8, 96, 256},
                                           GluCase{WeightFormat::Q8_0, 16, 4, 12, 64, 768},
                                           GluCase{WeightFormat::Q8_0, 8, 2, 6, 32, 256},
                                           GluCase{WeightFormat::Q4_K, 16, 4, 12, 64, 512, true},
                                           GluCase{WeightFormat::Q6_K, 8, 4, 8, 64, 256, true}));

TEST(MoeDmmvIntdotOps, RefusesWhatTheKernelCannotServe) {
  EXPECT_EQ(moe_dmmv_intdot_kernel_name(WeightFormat::F16), nullptr);
  EXPECT_FALSE(moe_dmmv_intdot_supported(device().info(), WeightFormat::F16));
  EXPECT_EQ(moe_dmmv_intdot_tuning(WeightFormat::Q4_K, 8, 2048, 64).chunk, 64u);  // the kernel's chunk
  EXPECT_EQ(moe_dmmv_intdot_tuning(WeightFormat::Q8_0, 1, 2048, 1).chunk, 16u);
  // Decode's shapes differ by format; a chunk's are one (32 threads of 4 rows).
  EXPECT_EQ(moe_dmmv_intdot_tuning(WeightFormat::Q8_0, 1, 2048, 1).threads, 64u);
  for (WeightFormat f : {WeightFormat::Q4_K, WeightFormat::Q8_0, WeightFormat::Q6_K}) {
    const DmmvIntdotTuning t = moe_dmmv_intdot_tuning(f, 1, 2048, 32);
    EXPECT_EQ(t.threads, 32u) << format_name(f);
    EXPECT_EQ(t.rows, 4u) << format_name(f);
  }

  const MoeShape shape{8, 2};
  RoutingBuffers rb = make_routing(shape, 4);
  Buffer any(device(), 1 << 20, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const MoeDmmvProblem problem{WeightFormat::Q8_0, TensorView::whole(any), TensorView::whole(any),
                               TensorView::whole(any), shape, 32, 256, 4, 256, 32, MoeInput::Assignment};
  const auto refused = [&](const MoeDmmvProblem& pr, const QuantizedX& qx, const DmmvIntdotTuning& t,
                           const char* says) {
    try {
      moe_dmmv_intdot_ops(pr, qx, rb.routing, limits, t);
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  MoeDmmvProblem f16 = problem;
  f16.format = WeightFormat::F16;
  refused(f16, quantized_x_in(TensorView::whole(any), 256, 8, limits), {}, "no expert integer-dot kernel");
  if (!build_info().has_intdot_shaders) return;  // the other refusals need the kernel
  // Down reads C*K = 8 columns; a quantized x of 4 is short.
  refused(problem, quantized_x_in(TensorView::whole(any), 256, 4, limits), {}, "must hold 8 columns");
  refused(problem, quantized_x_in(TensorView::whole(any), 256, 8, limits), {32, 2, 1, 32}, "first chunk");
  DmmvIntdotTuning three = passes_of(3);
  refused(problem, quantized_x_in(TensorView::whole(any), 256, 8, limits), three, "must be 1, 2, 4 or 8");
  refused(problem, quantized_x_in(TensorView::whole(any), 256, 8, limits), row_teams(32, 4, 1, 12),
          "a power of two");
  refused(problem, quantized_x_in(TensorView::whole(any), 256, 8, limits), row_teams(32, 4, 1, 64),
          "up to the 32 threads");
}

}  // namespace
}  // namespace pb::test
