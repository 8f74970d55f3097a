// Greedy argmax against the reference, in one pass (argmax_op) and in two (argmax_two_pass_ops:
// slices of 2048, then their top twos combined): random logits at vocabularies from 1 to 262144
// (Gemma's) with several padded columns written at an unaligned output position, then the
// rules that make the fingerprint deterministic: ties go to the lowest index (and give a zero
// margin), NaN never wins, an all-NaN column reports "no token", -inf and signed zeros are
// ordinary values. At 3000 logits the rules' special values fall in both slices of the two-pass
// form, so the combination is checked across slices. Tolerance: exact (indices and value bits;
// a comparison has no rounding).
#include <gtest/gtest.h>

#include <cmath>
#include <bit>
#include <limits>
#include <tuple>

#include "engine/ops/argmax_op.h"
#include "engine/reference/argmax_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kOutPos = 5;  // not a multiple of 4: the tokens window starts before it
constexpr uint32_t kTokenSentinel = 0xABCDu;

// Runs argmax over `logits` (in two passes or one) and checks tokens (and the ids around them)
// and top2 exactly.
void check_argmax(const std::vector<float>& logits, uint32_t vocab, uint32_t ncols, uint32_t stride, bool two_pass) {
  const std::vector<uint32_t> tokens0(kOutPos + ncols + 3, kTokenSentinel);
  const std::vector<uint32_t> top2_0(size_t(ncols) * 4, 0);
  Buffer lb = upload_floats(logits, "logits");
  Buffer tb = upload_vector(tokens0, "tokens"), sb = upload_vector(top2_0, "top2");
  Buffer pb(device(), argmax_partials_bytes(vocab, ncols), MemoryUse::Device, "partials");
  const ArgmaxProblem problem{TensorView::whole(lb), TensorView::whole(tb), TensorView::whole(sb), vocab,
                              ncols, stride, kOutPos, TensorView::whole(pb)};
  const BindingLimits limits = BindingLimits::of(device().info());
  const std::vector<Op> ops = two_pass ? argmax_two_pass_ops(problem, limits) : std::vector<Op>{argmax_op(problem, limits)};
  ASSERT_EQ(ops.size(), two_pass ? 2u : 1u);
  run_ops(ops, BarrierPolicy::Ledger);
  const auto tokens = download_vector<uint32_t>(tb, tokens0.size());
  const auto top2 = download_vector<uint32_t>(sb, top2_0.size());

  const auto expected = ref::argmax(logits, vocab, ncols, stride);
  const auto same_value = [](uint32_t bits, float value) {
    return std::isnan(value) ? std::isnan(std::bit_cast<float>(bits)) : bits == bits_of(value);
  };
  for (uint32_t c = 0; c < ncols; ++c) {
    const ref::Top2& e = expected[c];
    EXPECT_EQ(tokens[kOutPos + c], e.index) << "column " << c;
    EXPECT_EQ(top2[4 * c], e.index) << "column " << c;
    EXPECT_TRUE(same_value(top2[4 * c + 1], e.value)) << "column " << c << " max " << e.value;
    EXPECT_EQ(top2[4 * c + 2], e.second_index) << "column " << c;
    EXPECT_TRUE(same_value(top2[4 * c + 3], e.second_value)) << "column " << c << " second " << e.second_value;
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i < kOutPos || i >= kOutPos + ncols) {
      EXPECT_EQ(tokens[i], kTokenSentinel) << "id " << i;
    }
  }
}

class ArgmaxTest : public GpuTest, public ::testing::WithParamInterface<std::tuple<uint32_t, bool>> {};

TEST_P(ArgmaxTest, MatchesTheReferenceOnRandomLogits) {
  const auto [vocab, two_pass] = GetParam();
  const uint32_t ncols = 3, stride = vocab + 3;
  std::mt19937 rng(29 + vocab);
  check_argmax(random_columns(vocab, ncols, stride, -20.0f, 20.0f, rng), vocab, ncols, stride, two_pass);
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, ArgmaxTest,
                         ::testing::Combine(::testing::Values(1u, 2u, 1000u, 4097u, 151936u, 262144u),
                                            ::testing::Bool()));

class ArgmaxRules : public GpuTest, public ::testing::WithParamInterface<bool> {};

TEST_P(ArgmaxRules, TiesNaNInfinitiesAndSignedZeros) {
  const uint32_t vocab = 3000, stride = 3001;
  std::vector<std::vector<float>> columns;
  std::mt19937 rng(31);
  const auto random = [&] { return random_columns(vocab, 1, stride, -5.0f, 5.0f, rng); };
  auto ties = random();  // three equal maxima: the lowest index wins, the next is second
  ties[2100] = ties[1200] = ties[2900] = 9.0f;
  columns.push_back(ties);
  auto nan = random();  // NaN everywhere a naive max would pick it, including index 0
  nan[0] = nan[1500] = nan[2999] = kNaN;
  nan[700] = 7.0f;
  columns.push_back(nan);
  columns.push_back(std::vector<float>(stride, kNaN));  // no candidate at all
  auto one = std::vector<float>(stride, kNaN);  // one candidate, and no second
  one[1234] = -3.0f;
  columns.push_back(one);
  columns.push_back(std::vector<float>(stride, -kInf));  // -inf is a value: index 0, second 1
  auto zeros = std::vector<float>(stride, 0.0f);  // -0 == +0: index 0, its bits are -0
  zeros[0] = -0.0f;
  columns.push_back(zeros);
  auto adjacent = random();  // winner and runner-up in the same invocation's share
  adjacent[1024] = 8.0f;
  adjacent[0] = 7.5f;
  columns.push_back(adjacent);

  std::vector<float> logits;
  for (const auto& col : columns) logits.insert(logits.end(), col.begin(), col.begin() + stride);
  check_argmax(logits, vocab, static_cast<uint32_t>(columns.size()), stride, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Passes, ArgmaxRules, ::testing::Bool());

TEST(ArgmaxOps, TwoPassesOnlyWhereTheyPayAndWithRoomForThePartials) {
  Buffer b(device(), 1 << 20, MemoryUse::Device, "b");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView whole = TensorView::whole(b);
  ArgmaxProblem p{whole, whole, whole, 3000, 1, 3000, 0, whole};
  EXPECT_EQ(argmax_ops(p, limits).size(), 1u);  // small: one workgroup is as fast
  p.vocab = p.logits_stride = 100000;
  EXPECT_EQ(argmax_ops(p, limits).size(), 2u);
  p.partials = TensorView{};
  EXPECT_EQ(argmax_ops(p, limits).size(), 1u);  // no partials given: one pass
  EXPECT_THROW(argmax_two_pass_ops(p, limits), UsageError);
  p.partials = whole.slice(0, argmax_partials_bytes(p.vocab, 1) - 16);  // one slice short
  EXPECT_THROW(argmax_two_pass_ops(p, limits), UsageError);
  p.vocab = p.logits_stride = kArgmaxSlice * kArgmaxMaxSlices + 1;  // more slices than one combine takes
  p.partials = whole;
  EXPECT_THROW(argmax_two_pass_ops(p, limits), UsageError);
}

}  // namespace
}  // namespace pb::test
