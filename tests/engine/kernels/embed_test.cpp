// Embedding lookup against the reference for every weight format (tables built with
// quantize_row), several columns from a position that is not aligned, a padded x stride, the
// Gemma scale and 1, rows that are not a multiple of the workgroup, and an out-of-range token
// id (NaN, never a read outside the table). Tolerance: exact, bit for bit (dequant.glsl does
// dequantize_row's float operations in its order, and the scale is one float multiply).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ops/embed_op.h"
#include "engine/quant/quantize.h"
#include "engine/reference/embed_ref.h"
#include "tests/engine/kernels/elementwise_fixture.h"

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

}  // namespace
}  // namespace pb::test
