// Decode's experts' down projection with the accumulation and the next norm in one op
// (moe_down_acc_norm_op) against the two ops it replaces (moe_dmmv_intdot_ops, then
// moe_acc_norm_op), which their own tests hold to the CPU reference: the experts' rows, x, and
// the norm's int8 input with its block squares, all bit for bit; the arrival counters back at
// zero, so a second dispatch writes the same again; and the builder's refusals.
#include <gtest/gtest.h>


#include "engine/ops/moe_down_acc_norm_op.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/intdot_fixture.h"
#include "tests/engine/kernels/moe_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct FusedCase {
  WeightFormat format;
  uint32_t experts, top_k, rows, cols;
  DmmvIntdotTuning fused = {};  // the fused form's shape; zeros: the engine's
};

void PrintTo(const FusedCase& c, std::ostream* os) {
  *os << format_name(c.format) << " E=" << c.experts << " K=" << c.top_k << " " << c.rows << "x" << c.cols;
  if (c.fused.threads) *os << " threads " << c.fused.threads << " rows " << c.fused.rows;
  if (c.fused.lanes) *os << " teams of " << c.fused.lanes;
}

// One token's routing, K experts' weights (the others NaN), act quantized for down: what both
// forms read, on the device, with the work list grouped and act quantized.
struct DownInputs {
  MoeShape shape;
  RoutingBuffers rb;
  Buffer weights, act, quantized;
  QuantizedX act_q;
  std::vector<float> x, norm_weight;
  Buffer norm_weight_buffer;
};

DownInputs make_inputs(const FusedCase& p, const BindingLimits& limits) {
  std::mt19937 rng(1234 + p.rows + p.cols + static_cast<uint32_t>(p.format));
  DownInputs in{MoeShape{p.experts, p.top_k, 0, 0, true}, make_routing(MoeShape{p.experts, p.top_k, 0, 0, true}, 1)};
  const std::vector<uint32_t> routes = random_routes(1, p.top_k, p.experts, rng);
  StackedExperts w = random_experts(p.format, p.experts, p.rows, p.cols, 0.05f, rng);
  poison_unselected(w.bytes, p.experts, routes);
  in.weights = upload_weights(p.format, p.cols, w.bytes, "experts");
  const uint32_t act_stride = p.cols + 4;
  in.act = upload_floats(random_columns(p.cols, p.top_k, act_stride, -1.0f, 1.0f, rng), "act");
  in.quantized = Buffer(device(), quantized_x_bytes(p.cols, p.top_k, limits), MemoryUse::Device, "act int8");
  in.act_q = quantized_x_in(TensorView::whole(in.quantized), p.cols, p.top_k, limits);
  upload_u32(in.rb.routing.route_e, routes);
  transfer().upload_from<float>(*in.rb.buffer, in.rb.routing.route_w.offset,
                                random_columns(p.top_k, 1, p.top_k, 0.0f, 1.0f, rng));
  in.x = random_columns(p.rows, 1, p.rows, -1.0f, 1.0f, rng);
  in.norm_weight = random_columns(p.rows, 1, p.rows, 0.5f, 1.5f, rng);
  in.norm_weight_buffer = upload_floats(in.norm_weight, "norm weight");
  const ProjectionProblem source{p.format, TensorView::whole(in.weights), TensorView::whole(in.act), {}, p.rows,
                                 p.cols,   p.top_k, act_stride, 0, false};
  std::vector<Op> ops{moe_group_op(in.shape, 1, in.rb.routing)};
  for (Op& op : quantize_x_ops(source, in.act_q, limits)) ops.push_back(std::move(op));
  run_ops(ops, BarrierPolicy::Ledger);
  return in;
}

// What one form writes: the experts' rows (K columns at a padded stride), x, and the norm's
// int8 input with its block squares (poisoned to start with).
struct DownOutputs {
  Buffer y, x, norm;
  uint32_t y_stride;
  MoeDmmvProblem down;
  MoeAccProblem acc;
  NormEpilogue epilogue;
};

DownOutputs make_outputs(const FusedCase& p, DownInputs& in, const BindingLimits& limits) {
  DownOutputs o;
  o.y_stride = p.rows + 64;
  o.y = upload_floats(std::vector<float>(size_t(p.top_k) * o.y_stride, kPadding), "expert out");
  o.x = upload_floats(in.x, "x");
  o.norm = upload_vector(std::vector<uint8_t>(deferred_norm_bytes(p.rows, limits), 0xA5), "deferred norm");
  o.down = MoeDmmvProblem{p.format, TensorView::whole(in.weights), TensorView::whole(in.act), TensorView::whole(o.y),
                          in.shape, p.rows, p.cols, 1, p.cols + 4, o.y_stride, MoeInput::Assignment};
  o.acc = MoeAccProblem{TensorView::whole(o.y), TensorView::whole(o.x), in.shape, p.rows, 1, o.y_stride, p.rows};
  o.epilogue = NormEpilogue{TensorView::whole(in.norm_weight_buffer),
                            deferred_norm_in(TensorView::whole(o.norm), p.rows, 1e-5f, limits)};
  return o;
}

void expect_same_bytes(const Buffer& a, const Buffer& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  const auto va = download_vector<uint32_t>(a, a.size() / 4), vb = download_vector<uint32_t>(b, b.size() / 4);
  for (size_t i = 0; i < va.size(); ++i) ASSERT_EQ(va[i], vb[i]) << what << " word " << i;
}

class MoeDownAccNormTest : public GpuTest, public ::testing::WithParamInterface<FusedCase> {};

TEST_P(MoeDownAccNormTest, WritesWhatDownAndTheAccumulationWrite) {
  const FusedCase& p = GetParam();
  const char* name = moe_down_acc_norm_kernel_name(p.format);
  ASSERT_NE(name, nullptr);
  ASSERT_EQ(find_kernel(name) != nullptr, build_info().has_intdot_shaders);
  const MoeShape shape{p.experts, p.top_k, 0, 0, true};
  const MoeDmmvProblem problem{p.format, {}, {}, {}, shape, p.rows, p.cols, 1, 0, 0, MoeInput::Assignment};
  if (!moe_dmmv_intdot_supported(device().info(), p.format)) {  // the engine must not choose it
    EXPECT_NE(moe_down_acc_norm_refusal(device().info(), problem), "");
    return;
  }
  ASSERT_EQ(moe_down_acc_norm_refusal(device().info(), problem), "");
  const BindingLimits limits = BindingLimits::of(device().info());
  DownInputs in = make_inputs(p, limits);

  // add_one: the norm multiplies by 1 + w (Qwen3.5), in both forms.
  for (const bool add_one : {false, true}) {
    SCOPED_TRACE(add_one ? "1 + w" : "w");
    DownOutputs two = make_outputs(p, in, limits);
    two.epilogue.add_one = add_one;
    // In the fused form's shape (the case's, else the engine's): it sums in the same order.
    const DmmvIntdotTuning shape = p.fused.threads ? p.fused : moe_down_acc_norm_tuning(p.format, p.cols);
    std::vector<Op> ops = moe_dmmv_intdot_ops(two.down, in.act_q, in.rb.routing, limits, shape);
    ops.push_back(moe_acc_norm_op(two.acc, in.rb.routing, two.epilogue));
    run_ops(ops, BarrierPolicy::Ledger);

    Buffer arrivals =
        upload_vector(std::vector<uint32_t>(moe_down_acc_norm_arrivals_bytes(p.rows) / 4, 0u), "arrivals");
    for (int dispatch = 0; dispatch < 2; ++dispatch) {  // the second finds the counters the first left
      DownOutputs one = make_outputs(p, in, limits);
      one.epilogue.add_one = add_one;
      const Op fused = moe_down_acc_norm_op(one.down, in.act_q, in.rb.routing, one.acc, one.epilogue,
                                            TensorView::whole(arrivals), limits, p.fused);
      run_ops(std::span(&fused, 1), BarrierPolicy::Ledger);
      SCOPED_TRACE("dispatch " + std::to_string(dispatch));
      expect_same_bytes(one.y, two.y, "expert rows");
      expect_same_bytes(one.x, two.x, "x");
      expect_same_bytes(one.norm, two.norm, "the norm's int8 input and block squares");
      for (uint32_t c : download_vector<uint32_t>(arrivals, arrivals.size() / 4)) ASSERT_EQ(c, 0u);
    }
  }
}

std::vector<FusedCase> cases() {
  return {
      {WeightFormat::Q4_K, 16, 8, 2048, 768},  // qwen3-30b-a3b's down: 64 workgroups a block
      {WeightFormat::Q4_K, 8, 2, 64, 256},
      {WeightFormat::Q8_0, 16, 4, 256, 512},
      {WeightFormat::Q6_K, 8, 3, 96, 256},
      // Row teams: 4 of 8 lanes, 2 rows each (8 rows a workgroup, 4 workgroups a block), and 2
      // teams of 16 (wider than lavapipe's subgroups) of 4 rows.
      {WeightFormat::Q4_K, 16, 8, 2048, 768, row_teams(32, 2, 2, 8)},
      {WeightFormat::Q8_0, 16, 4, 256, 512, row_teams(32, 4, 1, 16)},
  };
}

INSTANTIATE_TEST_SUITE_P(Formats, MoeDownAccNormTest, ::testing::ValuesIn(cases()));

TEST_F(MoeDownAccNormTest, RefusesWhatItCannotWrite) {
  const FusedCase p{WeightFormat::Q4_K, 8, 2, 64, 256};
  if (!moe_dmmv_intdot_supported(device().info(), p.format)) {
    const MoeDmmvProblem problem{p.format, {}, {}, {}, MoeShape{8, 2, 0, 0, true}, 64, 256, 1, 0, 0,
                                 MoeInput::Assignment};
    EXPECT_NE(moe_down_acc_norm_refusal(device().info(), problem), "");
    return;
  }
  const BindingLimits limits = BindingLimits::of(device().info());
  DownInputs in = make_inputs(p, limits);
  DownOutputs o = make_outputs(p, in, limits);
  Buffer arrivals(device(), 256, MemoryUse::Device, "arrivals");
  const auto build = [&](const MoeDmmvProblem& down, const MoeAccProblem& acc, const TensorView& counters) {
    return moe_down_acc_norm_op(down, in.act_q, in.rb.routing, acc, o.epilogue, counters, limits);
  };
  EXPECT_NO_THROW(build(o.down, o.acc, TensorView::whole(arrivals)));
  EXPECT_THROW(build(o.down, o.acc, TensorView{&arrivals, 0, 0}), UsageError);  // no counters
  // 8 teams of 4 rows: 32 rows a workgroup divide a block; 8 teams of 8 rows (64) do not.
  EXPECT_NO_THROW(moe_down_acc_norm_op(o.down, in.act_q, in.rb.routing, o.acc, o.epilogue, TensorView::whole(arrivals),
                                       limits, row_teams(32, 4, 1, 4)));
  EXPECT_THROW(moe_down_acc_norm_op(o.down, in.act_q, in.rb.routing, o.acc, o.epilogue, TensorView::whole(arrivals),
                                    limits, row_teams(32, 8, 1, 4)),
               UsageError);
  MoeDmmvProblem gate = o.down;
  gate.input = MoeInput::Token;
  EXPECT_THROW(build(gate, o.acc, TensorView::whole(arrivals)), UsageError);
  EXPECT_NE(moe_down_acc_norm_refusal(device().info(), gate), "");
  MoeDmmvProblem ragged = o.down;
  ragged.rows = 48;  // not whole blocks of the norm
  EXPECT_NE(moe_down_acc_norm_refusal(device().info(), ragged), "");
  MoeAccProblem elsewhere = o.acc;
  elsewhere.out = TensorView::whole(o.x);  // not what down writes
  EXPECT_THROW(build(o.down, elsewhere, TensorView::whole(arrivals)), UsageError);
  MoeAccProblem strided = o.acc;
  strided.out_stride = o.y_stride + 4;
  EXPECT_THROW(build(o.down, strided, TensorView::whole(arrivals)), UsageError);
  BindingLimits sliced = limits;  // the experts in several bindings
  sliced.max_range = row_bytes(p.format, p.cols) * p.rows * 2;
  EXPECT_THROW(moe_down_acc_norm_op(o.down, in.act_q, in.rb.routing, o.acc, o.epilogue, TensorView::whole(arrivals),
                                    sliced),
               UsageError);
}

}  // namespace
}  // namespace pb::test
