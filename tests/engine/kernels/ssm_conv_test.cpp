// Causal conv1d + SiLU with carried state (kernels/ssm_conv.comp) against the float64
// reference: 8 tokens as one call, as chunks of 5 then 3, and as 8 one-token decode steps, all
// from a nonzero initial state, for widths 2, 4 (the real one) and 8 and channel counts that
// are and are not multiples of the 64-invocation workgroup. The chained calls share one state
// buffer and run in one submit under the hazard ledger, so the op's declared state access is
// what orders them. Tolerance: |gpu - ref| <= 1e-6 (|ref| + sum_i |w_i x_i|) (a float sum of
// `width` products and a float exp; measured worst ~2e-7). Every chunking gives the same bits
// as the single call: each token's sum runs in the same order from the same float window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/ops/ssm_conv_op.h"
#include "engine/reference/ssm_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

constexpr uint32_t kTokens = 8;

struct ConvCase {
  uint32_t channels, width;
};

void PrintTo(const ConvCase& c, std::ostream* os) {
  *os << "channels=" << c.channels << " width=" << c.width;
}

struct ConvInputs {
  uint32_t channels, width, x_stride, y_stride;
  std::vector<float> x;       // kTokens columns at x_stride
  std::vector<float> weight;  // [channels][width]
  std::vector<float> state;   // [channels][width - 1]
};

struct ConvResult {
  std::vector<float> y;  // kTokens columns at y_stride
  std::vector<float> state;
};

// Runs the tokens as consecutive chunks of the given sizes through one state buffer, all
// chunks in one submit; each chunk reads and writes its own x and y buffers.
ConvResult run_chunks(const ConvInputs& in, const std::vector<uint32_t>& chunks) {
  Buffer weight = upload_floats(in.weight, "conv weight");
  Buffer state = upload_floats(in.state, "conv state");
  std::vector<Buffer> xs, ys;
  xs.reserve(chunks.size());
  ys.reserve(chunks.size());
  std::vector<Op> ops;
  uint32_t first = 0;
  for (uint32_t n : chunks) {
    const auto begin = in.x.begin() + size_t(first) * in.x_stride;
    xs.push_back(upload_floats(std::vector<float>(begin, begin + size_t(n) * in.x_stride), "conv x"));
    ys.push_back(upload_floats(std::vector<float>(size_t(n) * in.y_stride, kPadding), "conv y"));
    Op op = ssm_conv_op({TensorView::whole(xs.back()), TensorView::whole(weight),
                         TensorView::whole(state), TensorView::whole(ys.back()), in.channels,
                         in.width, n, in.x_stride, in.y_stride});
    op.token = static_cast<int32_t>(first);
    ops.push_back(op);
    first += n;
  }
  run_ops(ops, BarrierPolicy::Ledger);
  ConvResult out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const auto y = download_floats(ys[i], size_t(chunks[i]) * in.y_stride);
    out.y.insert(out.y.end(), y.begin(), y.end());
  }
  out.state = download_floats(state, in.state.size());
  return out;
}

class SsmConvTest : public GpuTest, public ::testing::WithParamInterface<ConvCase> {};

TEST_P(SsmConvTest, ChunksAndDecodeStepsMatchOneCallAndTheReference) {
  const ConvCase& p = GetParam();
  std::mt19937 rng(5 + p.channels + p.width);
  ConvInputs in{p.channels, p.width, p.channels + 3, p.channels + 5, {}, {}, {}};
  in.x = random_columns(p.channels, kTokens, in.x_stride, -2.0f, 2.0f, rng);
  in.weight = random_columns(p.channels * p.width, 1, p.channels * p.width, -1.0f, 1.0f, rng);
  in.state = random_columns(p.channels * (p.width - 1), 1, p.channels * (p.width - 1), -2.0f, 2.0f, rng);

  std::vector<float> expected(size_t(kTokens) * in.y_stride, kPadding);
  std::vector<float> expected_state = in.state;
  ref::ssm_conv(in.x, p.channels, kTokens, in.x_stride, in.weight, p.width, expected_state,
                expected, in.y_stride);

  const ConvResult whole = run_chunks(in, {kTokens});
  expect_padding_kept(whole.y, expected, p.channels, in.y_stride, "y");
  double worst = 0;
  for (uint32_t c = 0; c < kTokens; ++c) {
    for (uint32_t ch = 0; ch < p.channels; ++ch) {
      double magnitude = 0;  // sum of |w_i x_i| over the taps, for the tolerance
      for (uint32_t i = 0; i < p.width; ++i) {
        const int32_t t = int32_t(c) - int32_t(p.width - 1) + int32_t(i);
        const float input = t >= 0 ? in.x[size_t(t) * in.x_stride + ch]
                                   : in.state[size_t(ch) * (p.width - 1) + (p.width - 1 + t)];
        magnitude += std::fabs(double(in.weight[size_t(ch) * p.width + i]) * input);
      }
      const size_t at = size_t(c) * in.y_stride + ch;
      const double error = std::fabs(double(whole.y[at]) - expected[at]);
      const double scale = std::fabs(expected[at]) + magnitude;
      ASSERT_LE(error, 1e-6 * scale) << "token " << c << " channel " << ch;
      worst = std::max(worst, error / scale);
    }
  }
  record_worst("worst_rel_error", worst);
  for (size_t i = 0; i < expected_state.size(); ++i) {
    ASSERT_EQ(bits_of(whole.state[i]), bits_of(expected_state[i])) << "state " << i;  // copies
  }

  const std::vector<uint32_t> decode_steps(kTokens, 1);
  for (const auto& chunks : {std::vector<uint32_t>{5, 3}, decode_steps}) {
    const ConvResult chained = run_chunks(in, chunks);
    for (size_t i = 0; i < whole.y.size(); ++i) {
      ASSERT_EQ(bits_of(chained.y[i]), bits_of(whole.y[i]))
          << chunks.size() << " chunks: y element " << i;
    }
    for (size_t i = 0; i < whole.state.size(); ++i) {
      ASSERT_EQ(bits_of(chained.state[i]), bits_of(whole.state[i]))
          << chunks.size() << " chunks: state " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SsmConvTest,
                         ::testing::Values(ConvCase{64, 4}, ConvCase{200, 4}, ConvCase{1000, 2},
                                           ConvCase{130, 8}, ConvCase{3 * 512, 4}));

TEST(SsmConvOp, RejectsBadWidthsAndAliasing) {
  Buffer x(device(), 4 * 1024, MemoryUse::Device, "x");
  Buffer y(device(), 4 * 1024, MemoryUse::Device, "y");
  const TensorView xv = TensorView::whole(x), yv = TensorView::whole(y);
  EXPECT_THROW(ssm_conv_op({xv, yv, yv, yv, 64, 1, 1, 64, 64}), UsageError);
  EXPECT_THROW(ssm_conv_op({xv, yv, yv, yv, 64, 9, 1, 64, 64}), UsageError);
  EXPECT_THROW(ssm_conv_op({xv, yv, yv, xv, 64, 4, 2, 64, 64}), UsageError);  // y is x
  EXPECT_THROW(ssm_conv_op({xv, yv, yv, yv, 64, 4, 32, 64, 64}), UsageError);  // x too small
  EXPECT_NO_THROW(ssm_conv_op({xv, yv, yv, yv, 64, 4, 2, 64, 64}));
}

}  // namespace
}  // namespace pb::test
