// Gated DeltaNet recurrence (kernels/ssm_delta.comp) against the float64 reference: chains of
// calls (C = 1, 4, 17 tokens) carrying the state from a nonzero start, key heads shared by
// groups of value heads, d_k = d_v = 64, 128 and 256, d_k != d_v with d_v not a multiple of the
// workgroup's columns, tiny odd heads, an uneven row split, A given as -exp(A_log), and the
// real qwen35-35b-a3b shape over a 154-token prefill and a decode step.
// Every call's output and the final state are checked; the chained calls also match one call
// over all tokens bit for bit (each token's math is the same float sequence either way).
// Tolerance: |gpu - ref| <= 2e-5 (|ref| + rms) per element, rms over the call's output (or the
// state): float sums of d_k products whose terms cancel. Measured worst 1.4e-6 over 22 tokens,
// 2.2e-6 over 155 (the recurrence contracts: decay <= 1, |k| = 1, beta < 1, so no growth).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/ops/ssm_delta_op.h"
#include "engine/reference/ssm_ref.h"
#include "harness/errors.h"
#include "tests/engine/kernels/elementwise_fixture.h"

namespace pb::test {
namespace {

constexpr double kTolerance = 2e-5;

struct DeltaCase {
  SsmShape shape;
  std::vector<uint32_t> chunks;  // tokens per call, in order
  SsmDeltaTuning tuning;
  bool a_is_neg_exp = false;
};

void PrintTo(const DeltaCase& c, std::ostream* os) {
  *os << "Hk=" << c.shape.key_heads << " Hv=" << c.shape.value_heads << " dk=" << c.shape.d_k
      << " dv=" << c.shape.d_v << " chunks=";
  for (uint32_t n : c.chunks) *os << n << ",";
  *os << " cols=" << c.tuning.cols << " rows=" << c.tuning.rows << (c.a_is_neg_exp ? " A" : " A_log");
}

// Host inputs of every token of a chain, in the kernel's layouts.
struct DeltaInputs {
  SsmShape shape;
  uint32_t tokens, qkv_stride, b_stride, a_stride, o_stride;
  std::vector<float> qkv, b, a, a_log, dt_bias, state;
  bool a_is_neg_exp;

  // The reference's view of tokens [first, first + n).
  ref::SsmDeltaInputs chunk(uint32_t first, uint32_t n) const {
    return {shape, n, std::span(qkv).subspan(size_t(first) * qkv_stride), qkv_stride,
            shape.q_offset(), shape.k_offset(), shape.v_offset(),
            std::span(b).subspan(size_t(first) * b_stride), b_stride,
            std::span(a).subspan(size_t(first) * a_stride), a_stride, a_log, dt_bias, 1e-6f,
            a_is_neg_exp};
  }
};

DeltaInputs random_inputs(const DeltaCase& p, std::mt19937& rng) {
  const SsmShape& s = p.shape;
  DeltaInputs in{s, 0, s.channels() + 4, s.value_heads + 1, s.value_heads + 2, s.value_dim() + 3,
                 {}, {}, {}, {}, {}, {}, p.a_is_neg_exp};
  in.tokens = std::accumulate(p.chunks.begin(), p.chunks.end(), 0u);
  in.qkv = random_columns(s.channels(), in.tokens, in.qkv_stride, -1.0f, 1.0f, rng);
  in.b = random_columns(s.value_heads, in.tokens, in.b_stride, -3.0f, 3.0f, rng);
  in.a = random_columns(s.value_heads, in.tokens, in.a_stride, -3.0f, 3.0f, rng);
  in.a_log = random_columns(s.value_heads, 1, s.value_heads, 0.0f, 2.7f, rng);  // A in [1, 15]
  if (p.a_is_neg_exp) {
    for (float& v : in.a_log) v = -std::exp(v);
  }
  in.dt_bias = random_columns(s.value_heads, 1, s.value_heads, -1.0f, 1.0f, rng);
  const auto floats = static_cast<uint32_t>(s.delta_state_floats());
  in.state = random_columns(floats, 1, floats, -0.5f, 0.5f, rng);
  return in;
}

struct DeltaResult {
  std::vector<std::vector<float>> o;  // per call: its columns at o_stride
  std::vector<float> state;
};

// Runs the calls in one submit under the hazard ledger, sharing one state buffer.
DeltaResult run_chain(const DeltaInputs& in, const std::vector<uint32_t>& chunks,
                      const SsmDeltaTuning& tuning) {
  Buffer a_log = upload_floats(in.a_log, "a_log"), dt_bias = upload_floats(in.dt_bias, "dt_bias");
  Buffer state = upload_floats(in.state, "state");
  std::vector<Buffer> buffers;
  buffers.reserve(4 * chunks.size());
  std::vector<Op> ops;
  uint32_t first = 0;
  for (uint32_t n : chunks) {
    auto columns = [&](const std::vector<float>& v, uint32_t stride, const char* name) {
      const auto begin = v.begin() + size_t(first) * stride;
      buffers.push_back(upload_floats(std::vector<float>(begin, begin + size_t(n) * stride), name));
      return TensorView::whole(buffers.back());
    };
    SsmDeltaProblem problem;
    problem.shape = in.shape;
    problem.qkv = columns(in.qkv, in.qkv_stride, "qkv");
    problem.b = columns(in.b, in.b_stride, "b");
    problem.a = columns(in.a, in.a_stride, "a");
    buffers.push_back(upload_floats(std::vector<float>(size_t(n) * in.o_stride, kPadding), "o"));
    problem.o = TensorView::whole(buffers.back());
    problem.a_log = TensorView::whole(a_log);
    problem.dt_bias = TensorView::whole(dt_bias);
    problem.state = TensorView::whole(state);
    problem.ncols = n;
    problem.qkv_stride = in.qkv_stride;
    problem.q_offset = in.shape.q_offset();
    problem.k_offset = in.shape.k_offset();
    problem.v_offset = in.shape.v_offset();
    problem.b_stride = in.b_stride;
    problem.a_stride = in.a_stride;
    problem.o_stride = in.o_stride;
    problem.a_is_neg_exp = in.a_is_neg_exp;
    Op op = ssm_delta_op(problem, tuning);
    op.token = static_cast<int32_t>(first);
    ops.push_back(op);
    first += n;
  }
  run_ops(ops, BarrierPolicy::Ledger);
  DeltaResult out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    out.o.push_back(download_floats(buffers[4 * i + 3], size_t(chunks[i]) * in.o_stride));
  }
  out.state = download_floats(state, in.state.size());
  return out;
}

// Worst |gpu - ref| / (|ref| + rms(ref)) over the elements i < n of each stride.
double worst_error(const std::vector<float>& gpu, const std::vector<float>& ref, uint32_t n,
                   uint32_t stride) {
  double squares = 0;
  size_t count = 0;
  for (size_t at = 0; at < ref.size(); ++at) {
    if (at % stride < n) squares += double(ref[at]) * ref[at], ++count;
  }
  const double rms = std::sqrt(squares / std::max<size_t>(count, 1));
  double worst = 0;
  for (size_t at = 0; at < ref.size(); ++at) {
    if (at % stride >= n) continue;
    worst = std::max(worst, std::fabs(double(gpu[at]) - ref[at]) / (std::fabs(ref[at]) + rms));
  }
  return worst;
}

class SsmDeltaTest : public GpuTest, public ::testing::WithParamInterface<DeltaCase> {};

TEST_P(SsmDeltaTest, ChainedCallsMatchTheReference) {
  const DeltaCase& p = GetParam();
  std::mt19937 rng(3 + p.shape.d_k * 7 + p.shape.d_v);
  const DeltaInputs in = random_inputs(p, rng);
  const uint32_t width = p.shape.value_dim();

  const DeltaResult gpu = run_chain(in, p.chunks, p.tuning);
  std::vector<float> state = in.state;
  double worst = 0;
  uint32_t first = 0;
  for (size_t call = 0; call < p.chunks.size(); ++call) {
    const uint32_t n = p.chunks[call];
    std::vector<float> expected(size_t(n) * in.o_stride, kPadding);
    ref::ssm_delta(in.chunk(first, n), state, expected, in.o_stride);
    expect_padding_kept(gpu.o[call], expected, width, in.o_stride, "o");
    const double error = worst_error(gpu.o[call], expected, width, in.o_stride);
    EXPECT_LE(error, kTolerance) << "call " << call << " (" << n << " tokens)";
    worst = std::max(worst, error);
    first += n;
  }
  const double state_error = worst_error(gpu.state, state, state.size(), state.size());
  EXPECT_LE(state_error, kTolerance) << "final state";
  record_worst("worst_rel_error", std::max(worst, state_error));

  if (p.chunks.size() > 1) {  // the same tokens as one call
    const DeltaResult single = run_chain(in, {in.tokens}, p.tuning);
    for (size_t i = 0; i < single.state.size(); ++i) {
      ASSERT_EQ(bits_of(single.state[i]), bits_of(gpu.state[i])) << "state " << i;
    }
    const std::vector<float>& last = gpu.o.back();
    const size_t offset = single.o[0].size() - last.size();
    for (size_t i = 0; i < last.size(); ++i) {
      ASSERT_EQ(bits_of(single.o[0][offset + i]), bits_of(last[i])) << "last call's o " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SsmDeltaTest,
    ::testing::Values(DeltaCase{{2, 4, 64, 64, 4}, {1, 4, 17}, {}},
                      DeltaCase{{2, 4, 128, 128, 4}, {17, 4, 1}, {}},
                      DeltaCase{{2, 2, 256, 256, 4}, {4, 1}, {}},
                      DeltaCase{{1, 3, 96, 40, 4}, {4, 17}, {}},
                      DeltaCase{{1, 2, 7, 5, 4}, {1, 4}, {}},
                      DeltaCase{{2, 4, 64, 64, 4}, {17}, {8, 5}, true},
                      DeltaCase{{1, 2, 128, 128, 4}, {1, 1, 1}, {64, 64}},
                      DeltaCase{{16, 32, 128, 128, 4}, {154, 1}, {}}));  // qwen35-35b-a3b

TEST(SsmDeltaOp, RejectsBadShapesAndViews) {
  Buffer big(device(), 1 << 20, MemoryUse::Device, "big");
  Buffer out(device(), 1 << 20, MemoryUse::Device, "out");
  SsmDeltaProblem p;
  p.shape = {1, 2, 64, 64, 4};
  p.qkv = p.b = p.a = p.a_log = p.dt_bias = p.state = TensorView::whole(big);
  p.o = TensorView::whole(out);
  EXPECT_NO_THROW(ssm_delta_op(p));
  SsmDeltaProblem bad = p;
  bad.shape.key_heads = 2;
  bad.shape.value_heads = 3;  // not a multiple of key_heads
  EXPECT_THROW(ssm_delta_op(bad), UsageError);
  bad = p;
  bad.shape.d_k = 257;
  EXPECT_THROW(ssm_delta_op(bad), UsageError);
  bad = p;
  bad.o = TensorView::whole(big);  // o overlaps the inputs
  EXPECT_THROW(ssm_delta_op(bad), UsageError);
  bad = p;
  bad.state = TensorView::whole(big).slice(0, 64 * 64 * 4);  // one head's state, two heads
  EXPECT_THROW(ssm_delta_op(bad), UsageError);
  EXPECT_THROW(ssm_delta_op(p, {0, 32}), UsageError);
  EXPECT_THROW(ssm_delta_op(p, {32, 65}), UsageError);
}

}  // namespace
}  // namespace pb::test
