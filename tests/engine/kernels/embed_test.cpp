// Embedding lookup against the reference for every weight format (tables built with
// quantize_row), several columns from a position that is not aligned, a padded x stride, the
// Gemma scale and 1, rows that are not a multiple of the workgroup, and an out-of-range token
// id (NaN, never a read outside the table). Tolerance: exact, bit for bit (dequant.glsl does
// dequantize_row's float operations in its order, and the scale is one float multiply).
//
// The decode embedding that also writes the first norm's int8 input (embed_norm,
// norm_placement: producer): x bit for bit as embed writes it, the quants and scales bit for
// bit what the CPU quantizer makes of x * w, each block's sum of x^2 within float rounding, and
// the builder's refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ops/embed_norm_op.h"
#include "engine/ops/embed_op.h"
#include "engine/quant/quantize.h"
#include "engine/reference/embed_ref.h"
#include "harness/build_info.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

struct EmbedCase {
  WeightFormat format;
  uint32_t hidden;
  float scale;
};

void PrintTo(const EmbedCase& c, std::ostream* os) {
  *os << format_name(c.format) << " hidden=" << c.hidden << " scale=" << c.scale;
}

class EmbedTest : public GpuTest, public ::testing::WithParamInterface<EmbedCase> {};

std::vector<uint8_t> random_table(WeightFormat format, uint32_t vocab, uint32_t hidden,
                                  std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const uint64_t rb = row_bytes(format, hidden);
  std::vector<uint8_t> table(rb * vocab);
  std::vector<float> row(hidden);
  for (uint32_t r = 0; r < vocab; ++r) {
    for (auto& v : row) v = normal(rng);
    quantize_row(format, row, std::span(table).subspan(r * rb, rb));
  }
  return table;
}

TEST_P(EmbedTest, MatchesTheReferenceBitForBit) {
  const EmbedCase& p = GetParam();
  std::mt19937 rng(23 + p.hidden);
  const uint32_t vocab = 37, pos0 = 5, ncols = 6, x_stride = p.hidden + 4;
  const auto table = random_table(p.format, vocab, p.hidden, rng);
  std::vector<uint32_t> tokens = {9, 9, 9, 9, 9, 36, 0, 17, 17, 3, vocab + 5, 9};  // ids at 5..10
  const std::vector<float> x0(size_t(ncols) * x_stride, kPadding);
  Buffer tb = upload_weights(p.format, p.hidden, table, "table"), kb = upload_vector(tokens, "tokens");
  Buffer xb = upload_floats(x0, "x");
  const Op op = embed_op({p.format, TensorView::whole(tb), TensorView::whole(kb), TensorView::whole(xb),
                          vocab, p.hidden, pos0, ncols, x_stride, p.scale},
                         BindingLimits::of(device().info()));
  run_ops(std::span(&op, 1));
  const auto gpu = download_floats(xb, x0.size());

  std::vector<float> expected = x0;
  ref::embed(p.format, table, vocab, p.hidden, tokens, pos0, ncols, p.scale, expected, x_stride);
  for (size_t at = 0; at < gpu.size(); ++at) {
    if (std::isnan(expected[at])) {
      ASSERT_TRUE(std::isnan(gpu[at])) << "element " << at << " of an out-of-range id";
    } else {
      ASSERT_EQ(bits_of(gpu[at]), bits_of(expected[at])) << "element " << at;  // padding too
    }
  }
}

std::vector<EmbedCase> cases() {
  std::vector<EmbedCase> list;
  for (WeightFormat f : kAllWeightFormats) {
    list.push_back({f, 512, 1.0f});
    list.push_back({f, 768, std::sqrt(768.0f)});  // 3 workgroups of 256; Gemma's scale
  }
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::F16, WeightFormat::Q8_0}) {
    list.push_back({f, f == WeightFormat::Q8_0 ? 256u : 96u, 1.0f});  // at most one workgroup
  }
  return list;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, EmbedTest, ::testing::ValuesIn(cases()));

TEST(EmbedOps, BindsOnlyTheAlignedWindowOfTokensItReads) {
  Buffer table(device(), row_bytes(WeightFormat::F16, 64) * 10, MemoryUse::Device, "table");
  Buffer tokens(device(), 4 * 256, MemoryUse::Device, "tokens");
  Buffer x(device(), 4 * 64 * 3, MemoryUse::Device, "x");
  const BindingLimits limits{16, ~0ull};
  const Op op = embed_op({WeightFormat::F16, TensorView::whole(table), TensorView::whole(tokens),
                          TensorView::whole(x), 10, 64, 37, 3, 64, 1.0f},
                         limits);
  EXPECT_EQ(op.bindings[1].offset, 144u);  // ids 36..39 from the window start at id 36
  EXPECT_EQ(op.bindings[1].size, 16u);
  EXPECT_EQ(op.push.bytes[8], 1);  // token0: id 37 is the window's second
}

class EmbedNormTest : public GpuTest, public ::testing::WithParamInterface<EmbedCase> {
 protected:
  void SetUp() override {
    if (!build_info().has_intdot_shaders) {
      GTEST_SKIP() << "no integer-dot build here (EmbedNormOps asserts the builder refuses it)";
    }
  }
};

// The norm-writing embedding of `p` on a random table against the references. With add_one the
// norm multiplies by 1 + w (Gemma's stored weights, centred on 0).
void check_embed_norm(const EmbedCase& p, bool add_one) {
  std::mt19937 rng(71 + p.hidden);
  const uint32_t vocab = 37, pos = 6;
  const auto table = random_table(p.format, vocab, p.hidden, rng);
  const std::vector<uint32_t> tokens = {1, 2, 3, 4, 5, 6, 29, 8};  // the step's id at 6
  std::vector<float> weight(p.hidden);
  std::uniform_real_distribution<float> stored(add_one ? -0.5f : 0.5f, add_one ? 0.5f : 1.5f);
  for (auto& w : weight) w = stored(rng);
  const std::vector<float> x0(p.hidden, kPadding);
  Buffer tb = upload_weights(p.format, p.hidden, table, "table"), kb = upload_vector(tokens, "tokens");
  Buffer xb = upload_floats(x0, "x"), wb = upload_floats(weight, "norm weight");
  const BindingLimits limits = BindingLimits::of(device().info());
  const uint64_t out_bytes = deferred_norm_bytes(p.hidden, limits);
  Buffer ob = upload_vector(std::vector<uint8_t>(out_bytes, 0xA5), "deferred norm");  // poisoned
  const QuantizedX out = deferred_norm_in(TensorView::whole(ob), p.hidden, 1e-5f, limits);
  const Op op = embed_norm_op({p.format, TensorView::whole(tb), TensorView::whole(kb), TensorView::whole(xb), vocab,
                               p.hidden, pos, 1, p.hidden, p.scale},
                              NormEpilogue{TensorView::whole(wb), out, add_one}, limits);
  run_ops(std::span(&op, 1));
  const auto x = download_floats(xb, p.hidden);

  std::vector<float> expected = x0;
  ref::embed(p.format, table, vocab, p.hidden, tokens, pos, 1, p.scale, expected, p.hidden);
  for (uint32_t i = 0; i < p.hidden; ++i) ASSERT_EQ(bits_of(x[i]), bits_of(expected[i])) << "x element " << i;
  std::vector<float> v(p.hidden);
  for (uint32_t i = 0; i < p.hidden; ++i) v[i] = x[i] * (add_one ? 1.0f + weight[i] : weight[i]);
  const std::vector<uint8_t> quants = download_vector<uint8_t>(ob, out_bytes);
  expect_cpu_quantization(quants, out, v, p.hidden, 1, p.hidden);
  const std::vector<float> words = download_floats(ob, out_bytes / 4);
  const size_t squares_at = out.rms->block_squares.offset / 4;
  for (uint32_t b = 0; b < p.hidden / 32; ++b) {
    double sum = 0;
    for (uint32_t i = 32 * b; i < 32 * b + 32; ++i) sum += double(x[i]) * x[i];
    ASSERT_NEAR(words[squares_at + b], sum, 1e-6 * sum) << "block " << b;
  }
}

TEST_P(EmbedNormTest, WritesXAndTheFirstNormsInt8Input) { check_embed_norm(GetParam(), false); }

TEST_P(EmbedNormTest, AppliesOnePlusTheStoredNormWeight) { check_embed_norm(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(AllFormats, EmbedNormTest, ::testing::ValuesIn(cases()));

TEST_F(EmbedNormTest, AnOutOfRangeIdWritesNaN) {
  const uint32_t vocab = 4, hidden = 64;
  std::mt19937 rng(5);
  const auto table = random_table(WeightFormat::F32, vocab, hidden, rng);
  Buffer tb = upload_weights(WeightFormat::F32, hidden, table, "table");
  Buffer kb = upload_vector(std::vector<uint32_t>{vocab + 1}, "tokens");
  Buffer xb = upload_floats(std::vector<float>(hidden, kPadding), "x");
  Buffer wb = upload_floats(std::vector<float>(hidden, 1.0f), "norm weight");
  const BindingLimits limits = BindingLimits::of(device().info());
  Buffer ob(device(), deferred_norm_bytes(hidden, limits), MemoryUse::Device, "deferred norm");
  const QuantizedX out = deferred_norm_in(TensorView::whole(ob), hidden, 1e-5f, limits);
  const Op op = embed_norm_op({WeightFormat::F32, TensorView::whole(tb), TensorView::whole(kb), TensorView::whole(xb),
                               vocab, hidden, 0, 1, hidden, 1.0f},
                              NormEpilogue{TensorView::whole(wb), out}, limits);
  run_ops(std::span(&op, 1));
  for (float v : download_floats(xb, hidden)) ASSERT_TRUE(std::isnan(v));
}

TEST(EmbedNormOps, RefusesWhatTheKernelCannotDo) {
  Buffer any(device(), 1 << 20, MemoryUse::Device, "any");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView all = TensorView::whole(any);
  const auto embed = [&](uint32_t hidden, uint32_t ncols) {
    return EmbedProblem{WeightFormat::F32, all, all, all, 10, hidden, 0, ncols, hidden, 1.0f};
  };
  const NormEpilogue norm{all, deferred_norm_in(all.slice(1 << 19, 1 << 16), 64, 1e-5f, limits)};
  if (!build_info().has_intdot_shaders) {
    EXPECT_FALSE(has_embed_norm_kernel());
    EXPECT_THROW(embed_norm_op(embed(64, 1), norm, limits), UsageError);
    return;
  }
  EXPECT_TRUE(has_embed_norm_kernel());
  EXPECT_NO_THROW(embed_norm_op(embed(64, 1), norm, limits));
  EXPECT_THROW(embed_norm_op(embed(64, 2), norm, limits), UsageError);  // a prompt's columns
  EXPECT_THROW(embed_norm_op(embed(48, 1), NormEpilogue{all, deferred_norm_in(all, 48, 1e-5f, limits)}, limits),
               UsageError);  // not whole blocks
  QuantizedX plain = norm.out;
  plain.rms.reset();
  EXPECT_THROW(embed_norm_op(embed(64, 1), NormEpilogue{all, plain}, limits), UsageError);  // no block squares
  EXPECT_THROW(embed_norm_op(embed(64, 1), NormEpilogue{all.slice(0, 128), norm.out}, limits),
               UsageError);  // 32 weights for 64 elements
}

}  // namespace
}  // namespace pb::test
