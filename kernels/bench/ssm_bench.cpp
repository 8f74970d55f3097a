// The Gated DeltaNet kernels of a hybrid layer at the SSM preset's shape (ShapeSet::ssm_model),
// for a decode token and a prefill chunk (ShapeSet::ssm_tokens), each as the forward pass
// dispatches it (engine/forward/deltanet_block.cpp):
//   ssm_conv/<shape>k<K>/tokens:C  the causal conv1d + SiLU over the q, k, v channels, its
//       state carried in and out (kernels/ssm_conv.comp)
//   ssm_delta/<shape>/tokens:C     the delta-rule recurrence over the chunk, token by token in
//       one dispatch, the state S read and written once (kernels/ssm_delta.comp)
//   ssm_conv_delta/<shape>k<K>/tokens:C  the two in one dispatch: the recurrence computing the
//       conv of the channels it reads, the conv state advanced by each key head's last
//       workgroup (kernels/ssm_conv_delta.comp; decode's with float inputs, one token)
//   ssm_conv_delta_gnorm/<shape>k<K>/tokens:1  and the output norm too, each value head's last
//       workgroup writing its int8 blocks (kernels/intdot/ssm_conv_delta_gnorm.comp; int8 decode's)
//   ssm_gnorm/<shape>/tokens:C     the gated RMSNorm of its output (kernels/ssm_gnorm.comp)
//   ssm_gnorm_quantize/<shape>/tokens:C  the same writing the output projection's int8 input
//                                  (kernels/intdot/ssm_gnorm_quantize.comp)
// <shape> is hk<key heads>hv<value heads>dk<d_k>dv<d_v> (ssm_name).
//
// What rotates: every input that comes from memory in the op stream, one buffer each per copy
// (so each binding starts at offset 0, aligned on any device): conv x, taps and state; delta's
// conv output, b, a and its recurrent state [Hv][dk][dv] (2 MiB at the model's shape); gnorm's
// o and z. The states are read and written in place, as in the op stream: a copy's state
// carries from one of its invocations to the next, which changes no timing (the kernels' work
// does not depend on the values, and the delta rule keeps them bounded: it decays S and moves
// it toward v along k, never past it).
// What does not rotate: the outputs (written, never read), the per-head vectors A_log and
// dt_bias and the gnorm weight (a few hundred bytes), and the fused kernel's arrival counters
// (zeroed once; every dispatch leaves them zero).
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/ops/fill_zero_op.h"
#include "engine/ops/quantizing_producer.h"
#include "engine/ops/ssm_conv_delta_gnorm_op.h"
#include "engine/ops/ssm_conv_op.h"
#include "engine/ops/ssm_delta_op.h"
#include "engine/ops/ssm_gnorm_op.h"
#include "harness/immediate.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"
#include "kernels/registry.h"

namespace pb::bench {
namespace {

constexpr float kEps = 1e-6f;  // the SSM preset's rms_eps (the gnorm) and the delta's l2 eps

// "hk16hv32dk128dv128": the heads and head sizes that set the kernels' work.
std::string ssm_name(const SsmShape& s) {
  std::string name = "hk";  // appended piecewise, as ShapeSet::attention_name (GCC 12 -Wrestrict)
  name += std::to_string(s.key_heads) + "hv" + std::to_string(s.value_heads) + "dk" + std::to_string(s.d_k) +
          "dv" + std::to_string(s.d_v);
  return name;
}

// One rotating input: `floats` synthetic floats per copy (none: an empty view in its place).
struct Input {
  uint64_t floats;
  const char* name;
};

// The rotation copies of a kernel's inputs: copies[i][j] is copy i of inputs[j], each its own
// buffer. The copy count comes from the bytes of one copy of all of them together; sets the
// case's invocation count.
std::vector<std::vector<TensorView>> input_copies(BenchEnv& env, BenchCase& c, uint32_t seed,
                                                  std::initializer_list<Input> inputs) {
  uint64_t bytes = 0;
  for (const Input& in : inputs) bytes += 4 * in.floats;
  const uint32_t n = rotation_copies(env.info(), bytes, env.input_cache());
  std::vector<std::vector<TensorView>> copies(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t j = 0;
    for (const Input& in : inputs) {
      const uint32_t id = seed + 16 * i + j++;
      if (in.floats == 0) {
        copies[i].emplace_back();
        continue;
      }
      copies[i].push_back(TensorView::whole(
          keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, in.floats, id, in.name))));
    }
  }
  c.invocations = n;
  return copies;
}

// A vector of `floats` synthetic floats that does not rotate.
TensorView fixed_values(BenchEnv& env, BenchCase& c, uint64_t floats, uint32_t seed, const char* name) {
  return TensorView::whole(keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, floats, seed,
                                                    name)));
}

// An output of `floats` floats, written by every invocation.
TensorView output(BenchEnv& env, BenchCase& c, uint64_t floats, const char* name) {
  return TensorView::whole(keep(c, Buffer(env.device(), 4 * floats, MemoryUse::Device, name)));
}

// The conv over `tokens` columns of the fused q/k/v projection's output (conv_in), writing
// conv_out; columns packed (the engine pads them to 64 floats, which every preset's channel
// count already is).
BenchCase conv_case(BenchEnv& env, uint32_t tokens) {
  BenchCase c;
  const SsmShape& s = env.shapes().ssm;
  const uint32_t channels = s.channels();
  const TensorView y = output(env, c, uint64_t(channels) * tokens, "conv out");
  const auto copies = input_copies(env, c, 300,
                                   {{uint64_t(channels) * tokens, "conv in"},
                                    {s.conv_weight_floats(), "conv weight"},
                                    {s.conv_state_floats(), "conv state"}});
  for (const std::vector<TensorView>& in : copies) {
    c.round.push_back(ssm_conv_op(SsmConvProblem{in[0], in[1], in[2], y, channels, s.conv_width, tokens,
                                                 channels, channels}));
  }
  c.cost = ssm_conv_cost(s, tokens);
  return c;
}

// The recurrence over `tokens` columns of the conv output (q, k and v at the shape's offsets)
// and of the beta and alpha projections' outputs, as deltanet_block sets it up; with
// `conv_inside` over the conv's input, computing the conv itself (ssm_conv_delta_op), as
// deltanet_block sets up a decode step; with `gnorm` (one token) also the output norm that
// writes the output projection's int8 input (ssm_conv_delta_gnorm_op), as an int8 decode step.
BenchCase delta_case(BenchEnv& env, uint32_t tokens, bool conv_inside, bool gnorm = false) {
  BenchCase c;
  const SsmShape& s = env.shapes().ssm;
  SsmDeltaProblem p;
  p.shape = s;
  p.a_log = fixed_values(env, c, s.value_heads, 310, "ssm A_log");
  p.dt_bias = fixed_values(env, c, s.value_heads, 311, "ssm dt_bias");
  p.o = output(env, c, uint64_t(s.value_dim()) * tokens, "ssm o");
  p.ncols = tokens;
  p.qkv_stride = s.channels();
  p.q_offset = s.q_offset();
  p.k_offset = s.k_offset();
  p.v_offset = s.v_offset();
  p.b_stride = p.a_stride = s.value_heads;
  p.o_stride = s.value_dim();
  p.l2_eps = kEps;
  const auto copies = input_copies(env, c, 320,
                                   {{uint64_t(s.channels()) * tokens, conv_inside ? "conv in" : "conv out"},
                                    {uint64_t(s.value_heads) * tokens, "ssm beta"},
                                    {uint64_t(s.value_heads) * tokens, "ssm alpha"},
                                    {s.delta_state_floats(), "delta state"},
                                    {conv_inside ? s.conv_weight_floats() : 0, "conv weight"},
                                    {conv_inside ? s.conv_state_floats() : 0, "conv state"},
                                    {gnorm ? uint64_t(s.value_dim()) : 0, "ssm z"}});
  const auto zeroed = [&](uint64_t words, const char* name) {
    const TensorView view = TensorView::whole(keep(c, Buffer(env.device(), words * 4, MemoryUse::Device, name)));
    const Op zero = fill_zero_op(view);
    run_immediately(env.device(), env.pipelines(), std::span(&zero, 1));
    return view;
  };
  const TensorView arrivals = conv_inside ? zeroed(s.key_heads, "arrivals") : TensorView{};
  const TensorView head_arrivals = gnorm ? zeroed(s.value_heads, "head arrivals") : TensorView{};
  const TensorView norm_weight = gnorm ? fixed_values(env, c, s.d_v, 312, "ssm norm weight") : TensorView{};
  const BindingLimits limits = BindingLimits::of(env.info());
  const TensorView quantized =
      gnorm ? TensorView::whole(keep(c, Buffer(env.device(), quantized_x_bytes(s.value_dim(), 1, limits),
                                               MemoryUse::Device, "ssm gated int8")))
            : TensorView{};
  for (const std::vector<TensorView>& in : copies) {
    p.qkv = in[0];
    p.b = in[1];
    p.a = in[2];
    p.state = in[3];
    const SsmConvInput conv{in[4], in[5], arrivals, s.conv_width};
    if (gnorm) {
      const SsmGnormProblem norm{p.o,   in[6],          norm_weight, TensorView{}, s.value_heads, s.d_v, 1,
                                 p.o_stride, s.value_dim(), s.value_dim(), kEps};
      c.round.push_back(ssm_conv_delta_gnorm_op(p, conv, norm, quantized_x_in(quantized, s.value_dim(), 1, limits),
                                                head_arrivals));
    } else {
      c.round.push_back(conv_inside ? ssm_conv_delta_op(p, conv) : ssm_delta_op(p));
    }
  }
  c.cost = ssm_delta_cost(s, tokens);
  if (conv_inside) {  // the conv's weights and state instead of its output; FLOPs as the two kernels'
    const KernelCost conv = ssm_conv_cost(s, tokens);
    c.cost.bytes += conv.bytes - 2.0 * 4.0 * double(s.channels()) * double(tokens);
    c.cost.flops += conv.flops;
  }
  if (gnorm) {  // the norm's z and weights read, its int8 blocks written; o read back
    const KernelCost norm = ssm_gnorm_cost(s, tokens);
    c.cost.bytes += norm.bytes - 4.0 * double(s.value_dim()) + 1.25 * double(s.value_dim());
    c.cost.flops += norm.flops;
  }
  return c;
}

// The gated norm of `tokens` columns of the recurrence's output o, gated by the z projection's;
// with `quantize`, the form that also writes its int8 input of the output projection.
BenchCase gnorm_case(BenchEnv& env, uint32_t tokens, bool quantize) {
  BenchCase c;
  const SsmShape& s = env.shapes().ssm;
  const uint32_t width = s.value_dim();
  const TensorView weight = fixed_values(env, c, s.d_v, 330, "ssm norm weight");
  const TensorView y = output(env, c, uint64_t(width) * tokens, "ssm gated");
  const auto copies =
      input_copies(env, c, 340, {{uint64_t(width) * tokens, "ssm o"}, {uint64_t(width) * tokens, "ssm z"}});
  const BindingLimits limits = BindingLimits::of(env.info());
  const Buffer& storage =
      keep(c, Buffer(env.device(), quantized_x_bytes(width, tokens, limits), MemoryUse::Device, "ssm gated int8"));
  const QuantizedX q = quantized_x_in(TensorView::whole(storage), width, tokens, limits);
  for (const std::vector<TensorView>& in : copies) {
    const SsmGnormProblem p{in[0], in[1], weight, y, s.value_heads, s.d_v, tokens, width, width, width, kEps};
    c.round.push_back(quantize ? ssm_gnorm_quantize_op(p, q) : ssm_gnorm_op(p));
  }
  c.cost = ssm_gnorm_cost(s, tokens);
  if (quantize) c.cost.bytes += 1.25 * width * tokens;  // a byte an element and 8 a block of 32
  return c;
}

}  // namespace

void register_ssm_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& shapes = benchmarks.env().shapes();
  const std::string name = ssm_name(shapes.ssm);
  const std::string conv_name = name + "k" + std::to_string(shapes.ssm.conv_width);
  for (const uint32_t tokens : shapes.ssm_tokens) {
    const std::string suffix = "/tokens:" + std::to_string(tokens);
    benchmarks.add("ssm_conv/" + conv_name + suffix, [=](BenchEnv& env) { return conv_case(env, tokens); });
    benchmarks.add("ssm_delta/" + name + suffix, [=](BenchEnv& env) { return delta_case(env, tokens, false); });
    benchmarks.add("ssm_conv_delta/" + conv_name + suffix,
                   [=](BenchEnv& env) { return delta_case(env, tokens, true); });
    const SsmDeltaProblem one{.shape = shapes.ssm, .ncols = 1};
    if (tokens == 1 && find_kernel("ssm_conv_delta_gnorm") != nullptr &&
        ssm_conv_delta_gnorm_refusal(one, SsmGnormProblem{.heads = shapes.ssm.value_heads, .d_v = shapes.ssm.d_v})
            .empty()) {
      benchmarks.add("ssm_conv_delta_gnorm/" + conv_name + suffix,
                     [=](BenchEnv& env) { return delta_case(env, tokens, true, true); });
    }
    benchmarks.add("ssm_gnorm/" + name + suffix, [=](BenchEnv& env) { return gnorm_case(env, tokens, false); });
    if (find_kernel("ssm_gnorm_quantize") != nullptr && shapes.ssm.d_v % 32 == 0 && shapes.ssm.d_v <= 128) {
      benchmarks.add("ssm_gnorm_quantize/" + name + suffix,
                     [=](BenchEnv& env) { return gnorm_case(env, tokens, true); });
    }
  }
}

}  // namespace pb::bench
