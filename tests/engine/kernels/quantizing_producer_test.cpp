// The producers that quantize their output (rmsnorm_quantize, glu_quantize, ssm_gnorm_quantize,
// decode attention's attn_decode_quantize / attn_merge_quantize) against the dispatches they
// replace: the float output must be the same bits as rmsnorm / glu / ssm_gnorm wrote, and the
// quants and scales the same bits as quantize_x wrote from that output, and as the CPU
// quantizer (ref::quantize_x) computes from it. Gated attention (the _quantize_gated twins)
// against attention then sigmoid_mul: within 4 ulps, its int8 form the CPU quantizer's of its
// own output. Sizes: one block, several, the 8B models' widths
// (4096, 14336) and Gemma's 5376; several columns with padded strides; both norm conventions and
// both activations; inputs of large magnitude; attention with one split and with several
// (merged), GQA and head sizes 64 to 256. Where the build lacks the integer-dot kernels the
// builders must refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "engine/ops/quantizing_producer.h"
#include "engine/ops/attention_shape.h"
#include "engine/ops/sigmoid_mul_op.h"
#include "engine/reference/dmmv_intdot_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/attention_fixture.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct ProducerCase {
  uint32_t n, ncols;
  bool variant;     // rmsnorm: 1 + w (Gemma); glu: GELU instead of SiLU
  float magnitude;  // inputs uniform in [-magnitude, magnitude]
};

void PrintTo(const ProducerCase& c, std::ostream* os) {
  *os << "n=" << c.n << " ncols=" << c.ncols << (c.variant ? " variant" : "") << " |x|<=" << c.magnitude;
}

// The fused op's float output and quantized bytes equal those of the unfused pair.
void expect_same_as_the_pair(const std::vector<float>& fused_y, const std::vector<float>& pair_y,
                             const std::vector<uint8_t>& fused_q, const std::vector<uint8_t>& pair_q) {
  ASSERT_EQ(fused_y.size(), pair_y.size());
  for (size_t i = 0; i < fused_y.size(); ++i) ASSERT_EQ(bits_of(fused_y[i]), bits_of(pair_y[i])) << "element " << i;
  ASSERT_EQ(fused_q, pair_q);
}

// Runs `fused` beside `pair` followed by quantize_x of the pair's output (ncols columns of n at
// `stride` in pair_out), then checks the fused output against the pair's and the fused int8
// form against quantize_x's, bit for bit, and against the CPU quantizer; `before` is both
// outputs' initial contents, whose padding must survive. `ulps` above 0: the fused output may
// differ from the pair's by that many units in the last place (a fused kernel whose compiler
// may order two divisions otherwise), and its int8 form is held to the CPU quantizer of its own
// output alone.
void expect_fused_equals_pair(std::vector<Op> fused, const std::vector<Op>& pair, const Buffer& fused_out,
                              const Buffer& pair_out, const std::vector<float>& before, uint32_t n, uint32_t ncols,
                              uint32_t stride, const QuantizedBuffer& fused_q, const QuantizedBuffer& pair_q,
                              int ulps = 0) {
  std::vector<Op> ops = std::move(fused);
  ops.insert(ops.end(), pair.begin(), pair.end());
  const ProjectionProblem quantize{WeightFormat::Q8_0, {}, TensorView::whole(pair_out), {}, 1, n, ncols, stride, 1, false};
  for (const Op& op : quantize_x_ops(quantize, pair_q.view, pair_q.limits)) ops.push_back(op);
  run_ops(ops, BarrierPolicy::Ledger);

  const auto fused_y = download_floats(fused_out, before.size());
  expect_padding_kept(fused_y, before, n, stride, "output");
  if (ulps == 0) {
    expect_same_as_the_pair(fused_y, download_floats(pair_out, before.size()), fused_q.download(), pair_q.download());
  } else {
    const auto pair_y = download_floats(pair_out, before.size());
    double worst = 0;  // in ulps of the pair's output
    for (size_t i = 0; i < fused_y.size(); ++i) {
      const float ulp = std::nextafter(std::fabs(pair_y[i]), INFINITY) - std::fabs(pair_y[i]);
      ASSERT_LE(std::fabs(fused_y[i] - pair_y[i]), ulps * ulp) << "element " << i << ": " << fused_y[i] << " against "
                                                               << pair_y[i];
      worst = std::max(worst, double(std::fabs(fused_y[i] - pair_y[i])) / ulp);
    }
    record_worst("worst_ulps", worst);
  }
  expect_cpu_quantization(fused_q.download(), fused_q.view, fused_y, n, ncols, stride);
}

bool fused_kernels_expected() {
  EXPECT_EQ(quantizing_producers_compiled(), build_info().has_intdot_shaders);
  return build_info().has_intdot_shaders;
}

class RmsNormQuantizeTest : public GpuTest, public ::testing::WithParamInterface<ProducerCase> {};

TEST_P(RmsNormQuantizeTest, WritesTheBitsOfRmsNormThenQuantizeX) {
  const ProducerCase& p = GetParam();
  std::mt19937 rng(11 + p.n + p.ncols);
  const uint32_t x_stride = p.n + 5, y_stride = p.n + 4;  // quantize_x reads y as vec4s
  const auto x = random_columns(p.n, p.ncols, x_stride, -p.magnitude, p.magnitude, rng);
  const auto w = random_columns(p.n, 1, p.n, -1.0f, 1.0f, rng);
  const std::vector<float> y0(size_t(p.ncols) * y_stride, kPadding);
  Buffer xb = upload_floats(x, "x"), wb = upload_floats(w, "w");
  Buffer fused_yb = upload_floats(y0, "fused y"), pair_yb = upload_floats(y0, "pair y");
  QuantizedBuffer fused_q(p.n, p.ncols), pair_q(p.n, p.ncols);
  auto problem = [&](const Buffer& y) {
    return RmsNormProblem{TensorView::whole(xb), TensorView::whole(wb), TensorView::whole(y), p.n, p.ncols,
                          x_stride, y_stride, 1e-6f, p.variant};
  };
  if (!fused_kernels_expected()) {
    EXPECT_THROW(rmsnorm_quantize_op(problem(fused_yb), fused_q.view), UsageError);
    return;
  }
  expect_fused_equals_pair({rmsnorm_quantize_op(problem(fused_yb), fused_q.view)}, {rmsnorm_op(problem(pair_yb))},
                           fused_yb, pair_yb, y0, p.n, p.ncols, y_stride, fused_q, pair_q);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RmsNormQuantizeTest,
                         ::testing::Values(ProducerCase{32, 1, false, 1.0f}, ProducerCase{256, 3, true, 1.0f},
                                           ProducerCase{2048, 2, false, 1.0f}, ProducerCase{4096, 1, false, 1.0f},
                                           ProducerCase{5376, 2, true, 1.0f}, ProducerCase{4096, 2, false, 3000.0f}));

class GluQuantizeTest : public GpuTest, public ::testing::WithParamInterface<ProducerCase> {};

TEST_P(GluQuantizeTest, WritesTheBitsOfGluThenQuantizeX) {
  const ProducerCase& p = GetParam();
  std::mt19937 rng(13 + p.n + p.ncols);
  const uint32_t gate_stride = p.n + 3, up_stride = p.n + 7, out_stride = p.n + 8;
  const auto gate = random_columns(p.n, p.ncols, gate_stride, -p.magnitude, p.magnitude, rng);
  const auto up = random_columns(p.n, p.ncols, up_stride, -p.magnitude, p.magnitude, rng);
  const std::vector<float> out0(size_t(p.ncols) * out_stride, kPadding);
  Buffer gb = upload_floats(gate, "gate"), ub = upload_floats(up, "up");
  Buffer fused_ob = upload_floats(out0, "fused out"), pair_ob = upload_floats(out0, "pair out");
  QuantizedBuffer fused_q(p.n, p.ncols), pair_q(p.n, p.ncols);
  auto problem = [&](const Buffer& out) {
    return GluProblem{TensorView::whole(gb), TensorView::whole(ub), TensorView::whole(out), p.n, p.ncols,
                      gate_stride, up_stride, out_stride, p.variant ? GluActivation::GeluTanh : GluActivation::Silu};
  };
  if (!fused_kernels_expected()) {
    EXPECT_THROW(glu_quantize_op(problem(fused_ob), fused_q.view), UsageError);
    return;
  }
  expect_fused_equals_pair({glu_quantize_op(problem(fused_ob), fused_q.view)}, {glu_op(problem(pair_ob))}, fused_ob,
                           pair_ob, out0, p.n, p.ncols, out_stride, fused_q, pair_q);
}

INSTANTIATE_TEST_SUITE_P(Sizes, GluQuantizeTest,
                         ::testing::Values(ProducerCase{32, 1, false, 4.0f}, ProducerCase{96, 3, true, 4.0f},
                                           ProducerCase{14336, 1, false, 4.0f}, ProducerCase{14336, 2, true, 4.0f},
                                           ProducerCase{1024, 2, false, 60.0f}));

struct GnormQuantizeCase {
  uint32_t heads, d_v, ncols;
  float magnitude;  // o uniform in [-magnitude, magnitude]
};

void PrintTo(const GnormQuantizeCase& c, std::ostream* os) {
  *os << c.heads << " heads x " << c.d_v << " ncols=" << c.ncols << " |o|<=" << c.magnitude;
}

class SsmGnormQuantizeTest : public GpuTest, public ::testing::WithParamInterface<GnormQuantizeCase> {};

TEST_P(SsmGnormQuantizeTest, WritesTheBitsOfSsmGnormThenQuantizeX) {
  const GnormQuantizeCase& p = GetParam();
  std::mt19937 rng(17 + p.heads + p.d_v + p.ncols);
  const uint32_t width = p.heads * p.d_v;
  const uint32_t o_stride = width + 3, z_stride = width + 6, y_stride = width + 4;  // quantize_x reads y as vec4s
  const auto o = random_columns(width, p.ncols, o_stride, -p.magnitude, p.magnitude, rng);
  const auto z = random_columns(width, p.ncols, z_stride, -6.0f, 6.0f, rng);
  const auto w = random_columns(p.d_v, 1, p.d_v, -1.0f, 1.0f, rng);
  const std::vector<float> y0(size_t(p.ncols) * y_stride, kPadding);
  Buffer ob = upload_floats(o, "o"), zb = upload_floats(z, "z"), wb = upload_floats(w, "w");
  Buffer fused_yb = upload_floats(y0, "fused y"), pair_yb = upload_floats(y0, "pair y");
  QuantizedBuffer fused_q(width, p.ncols), pair_q(width, p.ncols);
  auto problem = [&](const Buffer& y) {
    return SsmGnormProblem{TensorView::whole(ob), TensorView::whole(zb), TensorView::whole(wb), TensorView::whole(y),
                           p.heads, p.d_v, p.ncols, o_stride, z_stride, y_stride, 1e-6f};
  };
  if (!fused_kernels_expected()) {
    EXPECT_NE(ssm_gnorm_quantize_refusal(problem(fused_yb)), "");
    EXPECT_THROW(ssm_gnorm_quantize_op(problem(fused_yb), fused_q.view), UsageError);
    return;
  }
  ASSERT_EQ(ssm_gnorm_quantize_refusal(problem(fused_yb)), "");
  expect_fused_equals_pair({ssm_gnorm_quantize_op(problem(fused_yb), fused_q.view)}, {ssm_gnorm_op(problem(pair_yb))},
                           fused_yb, pair_yb, y0, width, p.ncols, y_stride, fused_q, pair_q);
}

// Heads of the workgroup's size (Qwen3.5's 128, 32 of them) and below it (tiny-hybrid's 64, one
// block), several tokens, o of large magnitude.
INSTANTIATE_TEST_SUITE_P(Sizes, SsmGnormQuantizeTest,
                         ::testing::Values(GnormQuantizeCase{32, 128, 1, 1.0f}, GnormQuantizeCase{4, 64, 3, 1.0f},
                                           GnormQuantizeCase{3, 32, 2, 1.0f}, GnormQuantizeCase{8, 96, 2, 3000.0f}));

TEST(QuantizingProducerOps, SsmGnormQuantizeRefusesHeadsItCannotHold) {
  Buffer any(device(), 1 << 16, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView v = TensorView::whole(any);
  const auto problem = [&](uint32_t d_v) { return SsmGnormProblem{v, v, v, v.slice(1 << 15, 1 << 14), 2, d_v, 1,
                                                                  2 * d_v, 2 * d_v, 2 * d_v, 1e-6f}; };
  const QuantizedX q = quantized_x_in(v, 128, 1, limits);
  if (find_kernel("ssm_gnorm_quantize") == nullptr) {
    EXPECT_THROW(ssm_gnorm_quantize_op(problem(64), q), UsageError);
    return;
  }
  EXPECT_NO_THROW(ssm_gnorm_quantize_op(problem(64), q));
  EXPECT_NE(ssm_gnorm_quantize_refusal(problem(48)), "");   // not whole blocks
  EXPECT_NE(ssm_gnorm_quantize_refusal(problem(256)), "");  // more elements than invocations
  EXPECT_THROW(ssm_gnorm_quantize_op(problem(256), quantized_x_in(v, 512, 1, limits)), UsageError);
  EXPECT_THROW(ssm_gnorm_quantize_op(problem(32), q), UsageError);  // the storage holds 128-wide columns
}

TEST(QuantizingProducerOps, RefuseWidthsThatAreNotWholeBlocksAndStorageTooSmall) {
  Buffer any(device(), 1 << 16, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const QuantizedX q64 = quantized_x_in(TensorView::whole(any), 64, 1, limits);
  const TensorView v = TensorView::whole(any);
  const GluProblem valid{v, v, v, 64, 1, 64, 64, 64, GluActivation::Silu};
  if (!quantizing_producers_compiled()) {  // no kernel: even a valid problem is refused
    EXPECT_THROW(glu_quantize_op(valid, q64), UsageError);
    return;
  }
  EXPECT_THROW(rmsnorm_quantize_op(RmsNormProblem{v, v, v, 48, 1, 48, 48, 1e-6f, false}, q64), UsageError);
  EXPECT_THROW(rmsnorm_quantize_op(RmsNormProblem{v, v, v, 64, 2, 64, 64, 1e-6f, false}, q64), UsageError);
  EXPECT_THROW(glu_quantize_op(GluProblem{v, v, v, 96, 1, 96, 96, 96, GluActivation::Silu}, q64), UsageError);
  EXPECT_NO_THROW(glu_quantize_op(valid, q64));
}

struct AttentionQuantizeCase {
  uint32_t n_heads, n_kv_heads, head_dim, pos, split;  // split 0: the default tuning's
};

void PrintTo(const AttentionQuantizeCase& c, std::ostream* os) {
  *os << c.n_heads << "/" << c.n_kv_heads << " heads x " << c.head_dim << " pos=" << c.pos << " split=" << c.split;
}

class AttentionQuantizeTest : public GpuTest, public ::testing::WithParamInterface<AttentionQuantizeCase> {};

// The fused attention against attention_decode_ops then quantize_x; `gated`: Qwen3.5's, the
// fused one applying the output gate (the _quantize_gated twins), the pair a sigmoid_mul first.
void check_attention_quantize(const AttentionQuantizeCase& c, bool gated) {
  const AttentionShape shape = attention_shape(c.n_heads, c.n_kv_heads, c.head_dim, c.pos + 9, 0);
  const uint32_t width = c.n_heads * c.head_dim;
  const AttentionData data = random_attention(shape, 1, width, 0, c.pos, 29 + c.pos + c.head_dim);
  const DeviceCache cache = upload_cache(data);
  Buffer qb = upload_floats(data.q, "q");
  const std::vector<float> o0(width, kPadding);
  Buffer fused_ob = upload_floats(o0, "fused o"), pair_ob = upload_floats(o0, "pair o");
  AttentionDecodeTuning tuning;
  if (c.split != 0) {
    tuning.split = c.split;
    tuning.target_workgroups = 0;
    tuning.one_split_max = 0;
  }
  const uint64_t scratch_bytes = std::max<uint64_t>(
      16, attention_decode_scratch_bytes(c.n_heads, c.head_dim, shape.max_ctx, tuning.split));
  Buffer fused_scratch(device(), scratch_bytes, MemoryUse::Device, "fused scratch");
  Buffer pair_scratch(device(), scratch_bytes, MemoryUse::Device, "pair scratch");
  QuantizedBuffer fused_q(width, 1), pair_q(width, 1);
  std::mt19937 rng(31 + c.pos);
  Buffer gate_b = upload_floats(random_columns(width, 1, width, -6.0f, 6.0f, rng), "output gate");
  const TensorView gate = gated ? TensorView::whole(gate_b) : TensorView{};
  auto problem = [&](const Buffer& o, const Buffer& scratch) {
    return AttentionDecodeProblem{shape, cache.view(), TensorView::whole(qb), TensorView::whole(o),
                                  TensorView::whole(scratch), c.pos};
  };
  if (!fused_kernels_expected()) {
    EXPECT_THROW(attention_decode_quantize_ops(problem(fused_ob, fused_scratch), fused_q.view, fused_q.limits, tuning),
                 UsageError);
    return;
  }
  const std::vector<Op> fused =
      attention_decode_quantize_ops(problem(fused_ob, fused_scratch), fused_q.view, fused_q.limits, tuning, gate);
  std::vector<Op> pair = attention_decode_ops(problem(pair_ob, pair_scratch), pair_q.limits, tuning);
  ASSERT_EQ(fused.size(), pair.size());
  EXPECT_EQ(pair.size() > 1, c.split != 0) << "the case's split decides whether attn_merge runs";
  EXPECT_EQ(std::string(fused.back().kernel->name),
            std::string(pair.size() > 1 ? "attn_merge_quantize" : "attn_decode_quantize") + (gated ? "_gated" : ""));
  if (gated) {
    pair.push_back(sigmoid_mul_op(
        SigmoidMulProblem{gate, TensorView::whole(pair_ob), width, 1, width, width, false}));
  }
  // Gated, the kernel divides twice where the pair divides once in each of two dispatches:
  // NVIDIA's compiler (driver 580, H200) then rounds some outputs otherwise, by up to 3 ulps.
  expect_fused_equals_pair(fused, pair, fused_ob, pair_ob, o0, width, 1, width, fused_q, pair_q, gated ? 4 : 0);
}

TEST_P(AttentionQuantizeTest, WritesTheBitsOfAttentionThenQuantizeX) { check_attention_quantize(GetParam(), false); }

TEST_P(AttentionQuantizeTest, GatedMatchesAttentionThenSigmoidMulWithinUlps) {
  check_attention_quantize(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionQuantizeTest,
                         ::testing::Values(AttentionQuantizeCase{4, 2, 128, 5, 0},     // one split
                                           AttentionQuantizeCase{4, 1, 64, 40, 0},     // one split, GQA 4
                                           AttentionQuantizeCase{4, 2, 128, 200, 16},  // merged
                                           AttentionQuantizeCase{2, 1, 256, 100, 32},  // merged, head 256
                                           AttentionQuantizeCase{8, 8, 64, 70, 8}));   // merged, MHA

TEST(AttentionQuantizeOps, RefusesHeadsThatAreNotWholeBlocks) {
  const AttentionShape shape = attention_shape(2, 1, 48, 16, 0);  // 48: not a multiple of 32
  Buffer b(device(), 1 << 16, MemoryUse::Device, "b");
  QuantizedBuffer q(96, 1);
  const AttentionDecodeProblem p{shape, {TensorView::whole(b), TensorView::whole(b)}, TensorView::whole(b),
                                 TensorView::whole(b), TensorView::whole(b), 3};
  EXPECT_THROW(attention_decode_quantize_ops(p, q.view, q.limits), UsageError);
}

}  // namespace
}  // namespace pb::test
