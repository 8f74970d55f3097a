// Greedy argmax against the reference, in one workgroup per column (argmax_op) and sliced
// (argmax_sliced_op: slices of 2048, the last to finish combining their top twos): random
// logits at vocabularies from 1 to 262144 (Gemma's) with several padded columns written at an
// unaligned output position, then the rules that make the fingerprint deterministic: ties go to
// the lowest index (and give a zero margin), NaN never wins, an all-NaN column reports "no
// token", -inf and signed zeros are ordinary values. At 3000 logits the rules' special values
// fall in both slices of the sliced form, so the combination is checked across slices. The
// sliced form runs twice on its partials, and dispatches of several column counts share one
// buffer, as the engine's do: its arrival counters must be back at zero after each. Tolerance:
// exact (indices and value bits; a comparison has no rounding).
#include <gtest/gtest.h>

#include <cmath>
#include <bit>
#include <limits>
#include <optional>
#include <string>
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

// Runs argmax over `logits` (sliced or not) and checks tokens (and the ids around them)
// and top2 exactly.
// `shared_partials`, where given, is the zeroed partials buffer of earlier calls (the sliced
// form's arrival counters must be back at zero after each).
void check_argmax(const std::vector<float>& logits, uint32_t vocab, uint32_t ncols, uint32_t stride, bool sliced,
                  const Buffer* shared_partials = nullptr) {
  const std::vector<uint32_t> tokens0(kOutPos + ncols + 3, kTokenSentinel);
  const std::vector<uint32_t> top2_0(size_t(ncols) * 4, 0);
  Buffer lb = upload_floats(logits, "logits");
  Buffer tb = upload_vector(tokens0, "tokens"), sb = upload_vector(top2_0, "top2");
  // Zeroed, as the arrival counters of the sliced form need; run twice below, as a decode does.
  std::optional<Buffer> own_partials;
  if (!shared_partials) {
    own_partials = upload_vector(std::vector<uint32_t>(argmax_partials_bytes(vocab, ncols) / 4, 0), "partials");
  }
  const Buffer& pb = shared_partials ? *shared_partials : *own_partials;
  const ArgmaxProblem problem{TensorView::whole(lb), TensorView::whole(tb), TensorView::whole(sb), vocab,
                              ncols, stride, kOutPos, TensorView::whole(pb)};
  const BindingLimits limits = BindingLimits::of(device().info());
  const std::vector<Op> ops = {sliced ? argmax_sliced_op(problem, limits) : argmax_op(problem, limits)};
  run_ops(ops, BarrierPolicy::Ledger);
  if (sliced) {
    // The counters must be back at zero: a second dispatch on the same partials gives the same.
    const auto first = download_vector<uint32_t>(sb, top2_0.size());
    transfer().upload_from<uint32_t>(sb, 0, top2_0);
    run_ops(ops, BarrierPolicy::Ledger);
    EXPECT_EQ(download_vector<uint32_t>(sb, top2_0.size()), first);
  }
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
  const auto [vocab, sliced] = GetParam();
  const uint32_t ncols = 3, stride = vocab + 3;
  std::mt19937 rng(29 + vocab);
  check_argmax(random_columns(vocab, ncols, stride, -20.0f, 20.0f, rng), vocab, ncols, stride, sliced);
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

class ArgmaxSlices : public GpuTest {};

// The engine samples the prompt's dead positions (several columns) and each token (one column)
// with one partials buffer: every dispatch must find its columns' arrival counters at zero,
// wherever its own top twos end.
TEST_F(ArgmaxSlices, DispatchesOfDifferentColumnCountsShareThePartials) {
  const uint32_t vocab = 5000;
  const Buffer partials = upload_vector(std::vector<uint32_t>(argmax_partials_bytes(vocab, 4) / 4, 0), "partials");
  std::mt19937 rng(37);
  for (const uint32_t ncols : {4u, 1u, 3u, 1u, 4u}) {
    SCOPED_TRACE("columns " + std::to_string(ncols));
    check_argmax(random_columns(vocab, ncols, vocab, -20.0f, 20.0f, rng), vocab, ncols, vocab, true, &partials);
  }
}

TEST(ArgmaxOps, SlicedOnlyWhereItPaysAndWithRoomForThePartials) {
  Buffer b(device(), 1 << 20, MemoryUse::Device, "b");
  const BindingLimits limits = BindingLimits::of(device().info());
  const TensorView whole = TensorView::whole(b);
  ArgmaxProblem p{whole, whole, whole, 3000, 1, 3000, 0, whole};
  EXPECT_EQ(sampler_argmax_op(p, limits).label, "argmax");  // small: one workgroup is as fast
  p.vocab = p.logits_stride = 100000;
  EXPECT_EQ(sampler_argmax_op(p, limits).label, "argmax_slices");
  p.partials = TensorView{};
  EXPECT_EQ(sampler_argmax_op(p, limits).label, "argmax");  // no partials given: one workgroup
  EXPECT_THROW(argmax_sliced_op(p, limits), UsageError);
  p.partials = whole.slice(0, argmax_partials_bytes(p.vocab, 1) - 16);  // no room for the counter
  EXPECT_THROW(argmax_sliced_op(p, limits), UsageError);
}

}  // namespace
}  // namespace pb::test
