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
// The output norm inside it too (kernels/intdot/ssm_conv_delta_gnorm.comp: decode steps of one
// token): its int8 blocks and scales, o and both states bit for bit those of ssm_conv_delta then
// ssm_gnorm_quantize (which quantizing_producer_test holds to the CPU quantizer), its counters
// left at zero, over several steps, at the real shape, tiny-hybrid's, and 3 value heads a key head.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/ops/quantizing_producer.h"
#include "engine/ops/ssm_conv_delta_gnorm_op.h"
#include "engine/ops/ssm_conv_op.h"
#include "engine/ops/ssm_delta_op.h"
#include "engine/reference/ssm_ref.h"
#include "harness/errors.h"
#include "kernels/registry.h"
#include "tests/engine/kernels/elementwise_fixture.h"
#include "tests/engine/kernels/quantized_x_fixture.h"

namespace pb::test {
namespace {

constexpr double kTolerance = 2e-5;  // ssm_delta_test's, relative to |ref| + rms
constexpr uint32_t kMaxUlps = 4;
constexpr float kGnormEps = 1e-6f;

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
  std::vector<float> z, norm_weight;  // the output norm's gate (columns at o_stride) and weights
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
  in.z = random_columns(s.value_dim(), in.tokens, in.o_stride, -3.0f, 3.0f, rng);
  in.norm_weight = random_columns(s.d_v, 1, s.d_v, 0.5f, 1.5f, rng);
  return in;
}

// What runs per call: the conv then the recurrence; both in one dispatch; that, then the output
// norm quantizing for the output projection; all three in one dispatch.
enum class Form { ConvThenDelta, ConvDelta, ConvDeltaThenGnorm, ConvDeltaGnorm };

struct Result {
  std::vector<std::vector<float>> o;  // per call: its columns at o_stride
  std::vector<float> conv_state, state;
  std::vector<uint32_t> arrivals, head_arrivals;
  std::vector<std::vector<uint8_t>> quantized;  // per call, with the output norm: its int8 storage
};

// The chain in one submit under the hazard ledger, each call in `form`.
Result run_chain(const Inputs& in, const std::vector<uint32_t>& chunks, const SsmDeltaTuning& tuning, Form form) {
  const SsmShape& s = in.shape;
  Buffer a_log = upload_floats(in.a_log, "a_log"), dt_bias = upload_floats(in.dt_bias, "dt_bias");
  Buffer conv_weight = upload_floats(in.conv_weight, "conv weight");
  Buffer conv_state = upload_floats(in.conv_state, "conv state");
  Buffer state = upload_floats(in.state, "state");
  Buffer arrivals = upload_vector(std::vector<uint32_t>(s.key_heads, 0u), "arrivals");
  Buffer head_arrivals = upload_vector(std::vector<uint32_t>(s.value_heads, 0u), "head arrivals");
  Buffer norm_weight = upload_floats(in.norm_weight, "norm weight");
  std::vector<QuantizedBuffer> quantized;
  quantized.reserve(chunks.size());
  std::vector<Buffer> buffers;
  buffers.reserve(7 * chunks.size());
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
    const SsmConvInput conv{TensorView::whole(conv_weight), TensorView::whole(conv_state), TensorView::whole(arrivals),
                            s.conv_width};
    if (form == Form::ConvDeltaThenGnorm || form == Form::ConvDeltaGnorm) {
      const TensorView z = columns(in.z, in.o_stride, "z");
      buffers.push_back(upload_floats(std::vector<float>(size_t(n) * in.o_stride, kPadding), "y"));
      const SsmGnormProblem gnorm{problem.o, z, TensorView::whole(norm_weight), TensorView::whole(buffers.back()),
                                  s.value_heads, s.d_v, n, in.o_stride, in.o_stride, in.o_stride, kGnormEps};
      quantized.emplace_back(s.value_dim(), 1);
      if (form == Form::ConvDeltaGnorm) {
        ops.push_back(ssm_conv_delta_gnorm_op(problem, conv, gnorm, quantized.back().view,
                                              TensorView::whole(head_arrivals), tuning));
      } else {
        ops.push_back(ssm_conv_delta_op(problem, conv, tuning));
        ops.push_back(ssm_gnorm_quantize_op(gnorm, quantized.back().view));
      }
    } else if (form == Form::ConvDelta) {
      ops.push_back(ssm_conv_delta_op(problem, conv, tuning));
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
  for (size_t i = 0; i < chunks.size(); ++i) {
    out.o.push_back(download_floats(*outputs[i], size_t(chunks[i]) * in.o_stride));
  }
  out.conv_state = download_floats(conv_state, in.conv_state.size());
  out.state = download_floats(state, in.state.size());
  out.arrivals = download_vector<uint32_t>(arrivals, s.key_heads);
  out.head_arrivals = download_vector<uint32_t>(head_arrivals, s.value_heads);
  for (const QuantizedBuffer& q : quantized) out.quantized.push_back(q.download());
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
  const Result fused = run_chain(in, p.chunks, p.tuning, Form::ConvDelta);
  const Result pair = run_chain(in, p.chunks, p.tuning, Form::ConvThenDelta);

  for (size_t i = 0; i < pair.conv_state.size(); ++i) {
    ASSERT_EQ(bits_of(fused.conv_state[i]), bits_of(pair.conv_state[i])) << "conv state " << i;
  }
  for (uint32_t h = 0; h < s.key_heads; ++h) EXPECT_EQ(fused.arrivals[h], 0u) << "key head " << h;
  uint32_t worst_ulps = 0;
  for (size_t call = 0; call < p.chunks.size(); ++call) {
    expect_padding_kept(fused.o[call], pair.o[call], s.value_dim(), in.o_stride, "o");
    for (size_t i = 0; i < pair.o[call].size(); ++i) {
      worst_ulps = std::max(worst_ulps, ulps_apart(fused.o[call][i], pair.o[call][i]));
    }
  }
  for (size_t i = 0; i < pair.state.size(); ++i) {
    worst_ulps = std::max(worst_ulps, ulps_apart(fused.state[i], pair.state[i]));
  }
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

// Buffers for the builders' refusals: a problem of one key head with every input in `big`, o
// at the start of `out`, and the conv's views in `conv`.
struct RefusalViews {
  Buffer big{device(), 1 << 20, MemoryUse::Device, "big"};
  Buffer out{device(), 1 << 20, MemoryUse::Device, "out"};
  Buffer conv{device(), 1 << 16, MemoryUse::Device, "conv"};

  SsmDeltaProblem problem() const {
    SsmDeltaProblem p;
    p.shape = {1, 2, 64, 64, 4};
    p.qkv = p.b = p.a = p.a_log = p.dt_bias = p.state = TensorView::whole(big);
    p.o = TensorView::whole(out).slice(0, 4096);
    p.q_offset = p.shape.q_offset();
    p.k_offset = p.shape.k_offset();
    p.v_offset = p.shape.v_offset();
    return p;
  }
  SsmConvInput input() const {
    const TensorView all = TensorView::whole(conv);
    return {all.slice(0, 4096), all.slice(4096, 4096), all.slice(8192, 256), 4};
  }
};

class SsmConvDeltaGnormTest : public GpuTest, public ::testing::WithParamInterface<ConvDeltaCase> {
 protected:
  void SetUp() override {
    if (find_kernel("ssm_conv_delta_gnorm") == nullptr) GTEST_SKIP() << "built without the integer-dot kernels";
  }
};

TEST_P(SsmConvDeltaGnormTest, MatchesTheRecurrenceThenTheQuantizingNorm) {
  const ConvDeltaCase& p = GetParam();
  const SsmShape& s = p.shape;
  std::mt19937 rng(23 + s.d_k + s.value_heads);
  const Inputs in = random_inputs(p, rng);
  const Result fused = run_chain(in, p.chunks, p.tuning, Form::ConvDeltaGnorm);
  const Result pair = run_chain(in, p.chunks, p.tuning, Form::ConvDeltaThenGnorm);
  ASSERT_EQ(fused.quantized.size(), p.chunks.size());
  for (size_t call = 0; call < p.chunks.size(); ++call) {
    const QuantizedX layout = quantized_x_in(TensorView{nullptr, 0, fused.quantized[call].size()}, s.value_dim(), 1,
                                             BindingLimits::of(device().info()));
    const size_t quants = layout.quants.bytes, scales_at = layout.scales.offset, scales = layout.scales.bytes;
    for (size_t k = 0; k < quants; ++k) {
      ASSERT_EQ(fused.quantized[call][k], pair.quantized[call][k]) << "call " << call << " quant " << k;
    }
    for (size_t k = scales_at; k < scales_at + scales; ++k) {
      ASSERT_EQ(fused.quantized[call][k], pair.quantized[call][k]) << "call " << call << " scale byte " << k;
    }
    for (size_t i = 0; i < pair.o[call].size(); ++i) {
      ASSERT_EQ(bits_of(fused.o[call][i]), bits_of(pair.o[call][i])) << "call " << call << " o " << i;
    }
  }
  for (size_t i = 0; i < pair.state.size(); ++i) ASSERT_EQ(bits_of(fused.state[i]), bits_of(pair.state[i])) << i;
  for (size_t i = 0; i < pair.conv_state.size(); ++i) {
    ASSERT_EQ(bits_of(fused.conv_state[i]), bits_of(pair.conv_state[i])) << "conv state " << i;
  }
  for (uint32_t h = 0; h < s.key_heads; ++h) EXPECT_EQ(fused.arrivals[h], 0u) << "key head " << h;
  for (uint32_t h = 0; h < s.value_heads; ++h) EXPECT_EQ(fused.head_arrivals[h], 0u) << "value head " << h;
}

INSTANTIATE_TEST_SUITE_P(
    DecodeSteps, SsmConvDeltaGnormTest,
    ::testing::Values(ConvDeltaCase{{2, 4, 64, 64, 4}, {1, 1, 1}, {}},       // tiny-hybrid's
                      ConvDeltaCase{{1, 3, 96, 64, 4}, {1, 1}, {}},          // 96 invocations, 64 elements
                      ConvDeltaCase{{16, 32, 128, 128, 4}, {1, 1, 1}, {}}));  // qwen35-35b-a3b

TEST(SsmConvDeltaGnormOp, RejectsWhatTheKernelCannotDo) {
  if (find_kernel("ssm_conv_delta_gnorm") == nullptr) {
    SsmDeltaProblem p;
    EXPECT_FALSE(ssm_conv_delta_gnorm_refusal(p, SsmGnormProblem{}).empty());
    return;
  }
  const RefusalViews views;
  const SsmDeltaProblem p = views.problem();
  const SsmConvInput input = views.input();
  const TensorView all = TensorView::whole(views.conv), out = TensorView::whole(views.out);
  const SsmGnormProblem gnorm{p.o, TensorView::whole(views.big), TensorView::whole(views.big), out.slice(8192, 4096),
                              2, 64, 1, 128, 128, 128, kGnormEps};
  const BindingLimits limits = BindingLimits::of(device().info());
  const QuantizedX q = quantized_x_in(out.slice(65536, 65536), 128, 1, limits);
  const TensorView heads = all.slice(16384, 256);
  EXPECT_NO_THROW(ssm_conv_delta_gnorm_op(p, input, gnorm, q, heads));
  SsmDeltaProblem two = p;
  two.ncols = 2;  // a chunk of two tokens
  EXPECT_THROW(ssm_conv_delta_gnorm_op(two, input, gnorm, q, heads), UsageError);
  SsmGnormProblem elsewhere = gnorm;
  elsewhere.o = out.slice(4096, 4096);  // not the recurrence's o
  EXPECT_THROW(ssm_conv_delta_gnorm_op(p, input, elsewhere, q, heads), UsageError);
  SsmDeltaProblem odd = p;
  odd.shape.d_v = 40;  // not whole blocks of 32
  SsmGnormProblem odd_norm = gnorm;
  odd_norm.d_v = 40;
  EXPECT_FALSE(ssm_conv_delta_gnorm_refusal(odd, odd_norm).empty());
  EXPECT_FALSE(ssm_conv_delta_gnorm_refusal(p, gnorm, {32, 64}).empty());  // 32 invocations for 64 elements
}

TEST(SsmConvDeltaOp, RejectsWhatTheKernelCannotDo) {
  const RefusalViews views;
  const SsmDeltaProblem p = views.problem();
  const SsmConvInput input = views.input();
  const TensorView all = TensorView::whole(views.conv);
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
  overlapping.arrivals = TensorView::whole(views.out);  // o is written there
  EXPECT_THROW(ssm_conv_delta_op(p, overlapping), UsageError);
}

}  // namespace
}  // namespace pb::test
