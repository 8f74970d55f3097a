// The Gated DeltaNet's conv inside its recurrence (kernels/ssm_conv_delta.comp) against the
// two dispatches it replaces (ssm_conv, then ssm_delta on the conv's output) and against the
// float64 references of both. Chains of calls from nonzero conv and recurrent states (decode
// steps of one token, chunks of 4 and 17), key heads shared by groups of value heads (so a key
// head's conv channels are read by several workgroups, and only its last may advance them), a
// width of 2 and 8 beside the real 4, and the qwen35-35b-a3b shape over decode steps.
// - The conv state is a copy of inputs: bit for bit the pair's.
// - o and the recurrent state: within 4 ulps of the pair's (the same float operations; only a
//   compiler's contraction of the conv's multiply-adds could differ), and within ssm_delta_test's
//   bound of the references.
// - The arrival counters are zero after every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/ops/ssm_conv_op.h"
#include "engine/ops/ssm_delta_op.h"
#include "engine/reference/ssm_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

constexpr double kTolerance = 2e-5;  // ssm_delta_test's, relative to |ref| + rms
constexpr uint32_t kMaxUlps = 4;

struct ConvDeltaCase {
  SsmShape shape;
  std::vector<uint32_t> chunks;  // tokens per call, in order
  SsmDeltaTuning tuning;
};

void PrintTo(const ConvDeltaCase& c, std::ostream* os) {
  *os << "Hk=" << c.shape.key_heads << " Hv=" << c.shape.value_heads << " dk=" << c.shape.d_k
      << " dv=" << c.shape.d_v << " width=" << c.shape.conv_width << " chunks=";
  for (uint32_t n : c.chunks) *os << n << ",";
  *os << " cols=" << c.tuning.cols << " rows=" << c.tuning.rows;
}

// Host inputs of every token of a chain, in the kernels' layouts.
struct Inputs {
  SsmShape shape;
  uint32_t tokens, x_stride, b_stride, a_stride, o_stride;
  std::vector<float> x, conv_weight, conv_state, b, a, a_log, dt_bias, state;
};

Inputs random_inputs(const ConvDeltaCase& p, std::mt19937& rng) {
  const SsmShape& s = p.shape;
  Inputs in{s, std::accumulate(p.chunks.begin(), p.chunks.end(), 0u), s.channels() + 4, s.value_heads + 1,
            s.value_heads + 2, s.value_dim() + 3, {}, {}, {}, {}, {}, {}, {}, {}};
  in.x = random_columns(s.channels(), in.tokens, in.x_stride, -1.0f, 1.0f, rng);
  const auto conv_weights = static_cast<uint32_t>(s.conv_weight_floats());
  const auto conv_states = static_cast<uint32_t>(s.conv_state_floats());
  in.conv_weight = random_columns(conv_weights, 1, conv_weights, -0.7f, 0.7f, rng);
  in.conv_state = random_columns(conv_states, 1, conv_states, -1.0f, 1.0f, rng);
  in.b = random_columns(s.value_heads, in.tokens, in.b_stride, -3.0f, 3.0f, rng);
  in.a = random_columns(s.value_heads, in.tokens, in.a_stride, -3.0f, 3.0f, rng);
  in.a_log = random_columns(s.value_heads, 1, s.value_heads, 0.0f, 2.7f, rng);
  in.dt_bias = random_columns(s.value_heads, 1, s.value_heads, -1.0f, 1.0f, rng);
  const auto floats = static_cast<uint32_t>(s.delta_state_floats());
  in.state = random_columns(floats, 1, floats, -0.5f, 0.5f, rng);
  return in;
}

struct Result {
  std::vector<std::vector<float>> o;  // per call: its columns at o_stride
  std::vector<float> conv_state, state;
  std::vector<uint32_t> arrivals;
};

// The chain in one submit under the hazard ledger: fused, ssm_conv_delta per call; else
// ssm_conv into a conv-output buffer, then ssm_delta on it.
Result run_chain(const Inputs& in, const std::vector<uint32_t>& chunks, const SsmDeltaTuning& tuning, bool fused) {
  const SsmShape& s = in.shape;
  Buffer a_log = upload_floats(in.a_log, "a_log"), dt_bias = upload_floats(in.dt_bias, "dt_bias");
  Buffer conv_weight = upload_floats(in.conv_weight, "conv weight");
  Buffer conv_state = upload_floats(in.conv_state, "conv state");
  Buffer state = upload_floats(in.state, "state");
  Buffer arrivals = upload_vector(std::vector<uint32_t>(s.key_heads, 0u), "arrivals");
  std::vector<Buffer> buffers;
  buffers.reserve(5 * chunks.size());
  std::vector<Buffer*> outputs;
  std::vector<Op> ops;
  uint32_t first = 0;
  for (uint32_t n : chunks) {
    auto columns = [&](const std::vector<float>& v, uint32_t stride, const char* name) {
      const auto begin = v.begin() + size_t(first) * stride;
      buffers.push_back(upload_floats(std::vector<float>(begin, begin + size_t(n) * stride), name));
      return TensorView::whole(buffers.back());
    };
    SsmDeltaProblem problem;
    problem.shape = s;
    problem.qkv = columns(in.x, in.x_stride, "conv x");
    problem.b = columns(in.b, in.b_stride, "b");
    problem.a = columns(in.a, in.a_stride, "a");
    buffers.push_back(upload_floats(std::vector<float>(size_t(n) * in.o_stride, kPadding), "o"));
    outputs.push_back(&buffers.back());
    problem.o = TensorView::whole(buffers.back());
    problem.a_log = TensorView::whole(a_log);
    problem.dt_bias = TensorView::whole(dt_bias);
    problem.state = TensorView::whole(state);
    problem.ncols = n;
    problem.qkv_stride = in.x_stride;
    problem.q_offset = s.q_offset();
    problem.k_offset = s.k_offset();
    problem.v_offset = s.v_offset();
    problem.b_stride = in.b_stride;
    problem.a_stride = in.a_stride;
    problem.o_stride = in.o_stride;
    if (fused) {
      ops.push_back(ssm_conv_delta_op(problem, {TensorView::whole(conv_weight), TensorView::whole(conv_state),
                                                TensorView::whole(arrivals), s.conv_width},
                                      tuning));
    } else {
      buffers.push_back(upload_floats(std::vector<float>(size_t(n) * in.x_stride, kPadding), "conv y"));
      const TensorView y = TensorView::whole(buffers.back());
      ops.push_back(ssm_conv_op({problem.qkv, TensorView::whole(conv_weight), TensorView::whole(conv_state), y,
                                 s.channels(), s.conv_width, n, in.x_stride, in.x_stride}));
      problem.qkv = y;
      ops.push_back(ssm_delta_op(problem, tuning));
    }
    first += n;
  }
  run_ops(ops, BarrierPolicy::Ledger);
  Result out;
  for (size_t i = 0; i < chunks.size(); ++i) out.o.push_back(download_floats(*outputs[i], size_t(chunks[i]) * in.o_stride));
  out.conv_state = download_floats(conv_state, in.conv_state.size());
  out.state = download_floats(state, in.state.size());
  out.arrivals = download_vector<uint32_t>(arrivals, s.key_heads);
  return out;
}

uint32_t ulps_apart(float a, float b) {
  const auto ordered = [](float v) {
    const int32_t bits = static_cast<int32_t>(bits_of(v));
    return bits < 0 ? int64_t(INT32_MIN) - bits : int64_t(bits);
  };
  return static_cast<uint32_t>(std::min<int64_t>(std::llabs(ordered(a) - ordered(b)), UINT32_MAX));
}

// Worst |gpu - ref| / (|ref| + rms(ref)) over the elements i < n of each stride.
double worst_error(const std::vector<float>& gpu, const std::vector<float>& ref, uint32_t n, uint32_t stride) {
  double squares = 0;
  size_t count = 0;
  for (size_t at = 0; at < ref.size(); ++at) {
    if (at % stride < n) squares += double(ref[at]) * ref[at], ++count;
  }
  const double rms = std::sqrt(squares / std::max<size_t>(count, 1));
  double worst = 0;
  for (size_t at = 0; at < ref.size(); ++at) {
    if (at % stride < n) worst = std::max(worst, std::fabs(double(gpu[at]) - ref[at]) / (std::fabs(ref[at]) + rms));
  }
  return worst;
}

class SsmConvDeltaTest : public GpuTest, public ::testing::WithParamInterface<ConvDeltaCase> {};

TEST_P(SsmConvDeltaTest, MatchesTheConvThenTheRecurrence) {
  const ConvDeltaCase& p = GetParam();
  const SsmShape& s = p.shape;
  std::mt19937 rng(11 + s.d_k * 3 + s.conv_width);
  const Inputs in = random_inputs(p, rng);
  const Result fused = run_chain(in, p.chunks, p.tuning, true);
  const Result pair = run_chain(in, p.chunks, p.tuning, false);

  for (size_t i = 0; i < pair.conv_state.size(); ++i) {
    ASSERT_EQ(bits_of(fused.conv_state[i]), bits_of(pair.conv_state[i])) << "conv state " << i;
  }
  for (uint32_t h = 0; h < s.key_heads; ++h) EXPECT_EQ(fused.arrivals[h], 0u) << "key head " << h;
  uint32_t worst_ulps = 0;
  for (size_t call = 0; call < p.chunks.size(); ++call) {
    expect_padding_kept(fused.o[call], pair.o[call], s.value_dim(), in.o_stride, "o");
    for (size_t i = 0; i < pair.o[call].size(); ++i) worst_ulps = std::max(worst_ulps, ulps_apart(fused.o[call][i], pair.o[call][i]));
  }
  for (size_t i = 0; i < pair.state.size(); ++i) worst_ulps = std::max(worst_ulps, ulps_apart(fused.state[i], pair.state[i]));
  EXPECT_LE(worst_ulps, kMaxUlps) << "o and state against ssm_conv then ssm_delta";
  record_worst("worst_ulps_against_the_pair", worst_ulps);

  // The references: the conv (float64, states float between calls), then the recurrence.
  std::vector<float> conv_state = in.conv_state, state = in.state;
  double worst = 0;
  uint32_t first = 0;
  for (size_t call = 0; call < p.chunks.size(); ++call) {
    const uint32_t n = p.chunks[call];
    std::vector<float> conv_out(size_t(n) * in.x_stride, 0.0f);
    ref::ssm_conv(std::span(in.x).subspan(size_t(first) * in.x_stride), s.channels(), n, in.x_stride, in.conv_weight,
                  s.conv_width, conv_state, conv_out, in.x_stride);
    const ref::SsmDeltaInputs delta{s, n, conv_out, in.x_stride, s.q_offset(), s.k_offset(), s.v_offset(),
                                    std::span(in.b).subspan(size_t(first) * in.b_stride), in.b_stride,
                                    std::span(in.a).subspan(size_t(first) * in.a_stride), in.a_stride,
                                    in.a_log, in.dt_bias, 1e-6f, false};
    std::vector<float> expected(size_t(n) * in.o_stride, kPadding);
    ref::ssm_delta(delta, state, expected, in.o_stride);
    const double error = worst_error(fused.o[call], expected, s.value_dim(), in.o_stride);
    EXPECT_LE(error, kTolerance) << "call " << call << " (" << n << " tokens)";
    worst = std::max(worst, error);
    first += n;
  }
  EXPECT_LE(worst_error(fused.state, state, state.size(), state.size()), kTolerance) << "final state";
  record_worst("worst_rel_error", worst);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SsmConvDeltaTest,
    ::testing::Values(ConvDeltaCase{{2, 4, 64, 64, 4}, {1, 1, 1}, {}},
                      ConvDeltaCase{{2, 4, 128, 128, 4}, {17, 1, 4}, {}},
                      ConvDeltaCase{{1, 3, 96, 40, 2}, {1, 4, 1}, {}},
                      ConvDeltaCase{{2, 4, 64, 64, 8}, {4, 1, 1}, {16, 16}},
                      ConvDeltaCase{{1, 2, 7, 5, 4}, {1, 1}, {}},
                      ConvDeltaCase{{16, 32, 128, 128, 4}, {6, 1, 1}, {}}));  // qwen35-35b-a3b

TEST(SsmConvDeltaOp, RejectsWhatTheKernelCannotDo) {
  Buffer big(device(), 1 << 20, MemoryUse::Device, "big");
  Buffer out(device(), 1 << 20, MemoryUse::Device, "out");
  Buffer conv(device(), 1 << 16, MemoryUse::Device, "conv");
  SsmDeltaProblem p;
  p.shape = {1, 2, 64, 64, 4};
  p.qkv = p.b = p.a = p.a_log = p.dt_bias = p.state = TensorView::whole(big);
  p.o = TensorView::whole(out);
  p.q_offset = p.shape.q_offset();
  p.k_offset = p.shape.k_offset();
  p.v_offset = p.shape.v_offset();
  const TensorView all = TensorView::whole(conv);
  const SsmConvInput input{all.slice(0, 4096), all.slice(4096, 4096), all.slice(8192, 256), 4};
  EXPECT_NO_THROW(ssm_conv_delta_op(p, input));
  SsmDeltaProblem moved = p;
  moved.k_offset += 1;  // not the conv's channel order
  EXPECT_THROW(ssm_conv_delta_op(moved, input), UsageError);
  SsmConvInput wide = input;
  wide.width = 9;
  EXPECT_THROW(ssm_conv_delta_op(p, wide), UsageError);
  SsmConvInput short_state = input;
  short_state.state = all.slice(4096, 64);  // fewer than channels x 3 floats
  EXPECT_THROW(ssm_conv_delta_op(p, short_state), UsageError);
  SsmConvInput overlapping = input;
  overlapping.arrivals = TensorView::whole(out);  // o is written there
  EXPECT_THROW(ssm_conv_delta_op(p, overlapping), UsageError);
}

}  // namespace
}  // namespace pb::test
