// The mixture-of-experts kernels at the MoE preset's shape (ShapeSet::moe_model), for a decode
// token and prefill chunks: the top-k routing (kernels/moe_topk.comp), the grouping of assignments
// by expert (moe_group.comp), both in one dispatch for a decode token (moe_topk_group.comp) and for
// a prefill chunk (moe_topk_chunk_group.comp), the expert DMMVs (moe_dmmv_*.comp, and on int8
// inputs intdot/moe_dmmv_intdot_*.comp) and, for chunks, the experts' tiled matmul
// (moe_matmul_*.comp, coopmat/moe_matmul_coopmat_*.comp) in each format a model's experts come in,
// and the weighted accumulation into the residual (moe_acc.comp; in decode also writing the next
// norm, intdot/moe_acc_norm.comp, or all of it in decode's down,
// intdot/moe_dmmv_intdot_<fmt>_acc_norm.comp); the DMMV's workgroup shapes and the matmul's
// cooperative-matrix tiles as tuning families.
//
// An expert DMMV reads only the experts its tokens chose, so rotating copies of the stacked
// weights alone would not keep it honest: one decode token reads 8 of 128 experts (7 MB of a
// 113 MB Q4_K tensor), and a few copies of that fit in an H100's L2. Each invocation therefore
// has a routing of its own, from router logits of its own, over a copy of its own (the copies
// cycle): enough invocations that the expert bytes they read, summed, pass the rotation total.
// The routings are built on the device by the engine's own topk and group kernels before timing,
// and the bytes model counts the experts each one selected (read back), not the whole tensor.
#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/ops/fill_zero_op.h"
#include "engine/ops/moe_acc_op.h"
#include "engine/ops/moe_cost.h"
#include "engine/ops/moe_dmmv_intdot_op.h"
#include "engine/ops/moe_dmmv_op.h"
#include "engine/ops/moe_down_acc_norm_op.h"
#include "engine/ops/moe_matmul_op.h"
#include "engine/ops/moe_routing_ops.h"
#include "harness/immediate.h"
#include "harness/transfer.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"
#include "kernels/registry.h"

namespace pb::bench {
namespace {

constexpr WeightFormat kExpertFormats[] = {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                                           WeightFormat::Q6_K};

// The two expert projections: gate (and up, the same shape: F rows of hidden) read the token's
// normed state; down (hidden rows of F) reads each (token, choice) pair's activated state.
enum class ExpertRole { Gate, Down };

struct ExpertMatrix {
  uint32_t rows = 0;
  uint32_t cols = 0;
  MoeInput input = MoeInput::Token;
};

ExpertMatrix expert_matrix(const ShapeSet& s, ExpertRole role) {
  if (role == ExpertRole::Gate) return {s.moe.expert_ffn, s.moe_hidden, MoeInput::Token};
  return {s.moe_hidden, s.moe.expert_ffn, MoeInput::Assignment};
}

std::string shape_name(const ShapeSet& s, ExpertRole role) {
  const ExpertMatrix m = expert_matrix(s, role);
  return std::string(role == ExpertRole::Gate ? "gate" : "down") + ":" + std::to_string(s.moe.n_experts) + "x" +
         std::to_string(m.rows) + "x" + std::to_string(m.cols);
}

std::string routing_name(const ShapeSet& s, uint32_t tokens) {
  return "top:" + std::to_string(s.moe.top_k) + "/tokens:" + std::to_string(tokens);
}

// The routing views of `tokens` tokens in a buffer of their own, kept by the case.
MoeRouting routing_buffer(BenchEnv& env, BenchCase& c, uint32_t tokens) {
  const MoeShape& m = env.shapes().moe;
  const uint64_t alignment = env.info().min_storage_buffer_offset_alignment;
  const Buffer& buffer =
      keep(c, Buffer(env.device(), moe_routing_bytes(m, tokens, alignment), MemoryUse::Device, "routing"));
  return moe_routing_in(TensorView::whole(buffer), m, tokens, alignment);
}

// A routing of `tokens` tokens in a buffer of its own, made on the device from synthetic router
// logits `seed` by the engine's topk and group kernels; its counter (the distinct experts) read
// back.
struct Routing {
  MoeRouting views;
  uint32_t experts = 0;
  TensorView logits;  // the router logits it was made from
};

Routing make_routing(BenchEnv& env, BenchCase& c, Transfer& transfer, uint32_t tokens, uint32_t seed) {
  const MoeShape& m = env.shapes().moe;
  const Buffer& logits = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                                  uint64_t(m.n_experts) * tokens, seed, "router logits"));
  Routing r{routing_buffer(env, c, tokens), 0, TensorView::whole(logits)};
  const Op ops[] = {moe_topk_op(m, TensorView::whole(logits), m.n_experts, tokens, r.views),
                    moe_group_op(m, tokens, r.views)};
  run_immediately(env.device(), env.pipelines(), ops);
  r.experts = transfer.download_as<uint32_t>(*r.views.counter.buffer, r.views.counter.offset, 1)[0];
  return r;
}

// Invocations of an expert DMMV with their own routings: enough that the experts they read
// pass the rotation total (an expected n_items per invocation), at most kMaxRotationCopies;
// weight copies as rotation_copies gives for the whole stacked tensor.
uint32_t expert_invocations(BenchEnv& env, uint64_t expert_bytes, uint32_t tokens) {
  if (env.input_cache() == InputCache::Hot) return 1;
  if (env.is_cpu_device()) return kCpuRotationCopies;
  const MoeShape& m = env.shapes().moe;
  const double read = expert_bytes * expected_distinct_experts(m.n_experts, m.top_k, tokens);
  const auto wanted = static_cast<uint32_t>(std::ceil(double(kRotationBytes) / read));
  return std::clamp<uint32_t>(wanted, 2, kMaxRotationCopies);
}

// The expert projection's ops for one invocation: the DMMV (with `tuning`; unset, the engine's
// moe_dmmv_tuning), with `matmul` set the experts' tiled matmul with that choice, or with
// `intdot` set the integer-dot DMMV in that shape (zeros: the engine's) on x quantized once
// before timing, as decode's norm and SwiGLU write it; with `glu` too, decode's routing, gate
// and up with the SwiGLU in one dispatch (moe_dmmv_intdot_glu_op: the gate and the up experts
// stacked in one tensor, the token's router logits ranked, act written in int8); with
// `acc_norm`, decode's down with the accumulation and the next norm in one dispatch
// (moe_down_acc_norm_op: each invocation with arrival counters of its own).
struct ExpertKernel {
  std::optional<MoeDmmvTuning> tuning;
  std::optional<MatmulChoice> matmul;
  std::optional<DmmvIntdotTuning> intdot;
  bool glu = false;
  bool acc_norm = false;
};

BenchCase moe_dmmv_case(BenchEnv& env, WeightFormat format, ExpertRole role, uint32_t tokens,
                        const ExpertKernel& kernel = {}) {
  BenchCase c;
  const ShapeSet& s = env.shapes();
  const MoeShape& m = s.moe;
  const ExpertMatrix w = expert_matrix(s, role);
  const BindingLimits limits = BindingLimits::of(env.info());
  // The experts stacked as one tensor of E * rows rows, as the model stores them (gate and up:
  // twice that, the up experts after the gate experts).
  const uint32_t stacks = kernel.glu ? 2 : 1;
  const auto weights = env.weights().get(env.device(), env.pipelines(), format, stacks * m.n_experts * w.rows, w.cols);
  c.resources.push_back(weights);
  const uint32_t assignments = tokens * m.top_k;
  const uint32_t x_columns = w.input == MoeInput::Token ? tokens : assignments;
  const uint32_t x_stride = (w.cols + 3) / 4 * 4, y_stride = (w.rows + 3) / 4 * 4;
  const Buffer& x = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                             uint64_t(x_stride) * x_columns, 40, "expert x"));
  const Buffer& y = keep(c, Buffer(env.device(), uint64_t(y_stride) * assignments * 4, MemoryUse::Device, "expert y"));
  std::optional<QuantizedX> xq, act;
  if (kernel.glu) {
    const Buffer& storage = keep(c, Buffer(env.device(), quantized_x_bytes(w.rows, assignments, limits),
                                           MemoryUse::Device, "expert act"));
    act = quantized_x_in(TensorView::whole(storage), w.rows, assignments, limits);
  }
  if (kernel.intdot) {
    const Buffer& storage = keep(c, Buffer(env.device(), quantized_x_bytes(w.cols, x_columns, limits),
                                           MemoryUse::Device, "expert xq"));
    xq = quantized_x_in(TensorView::whole(storage), w.cols, x_columns, limits);
    const ProjectionProblem source{format, TensorView{}, TensorView::whole(x), TensorView::whole(y), w.rows,
                                   w.cols, x_columns,    x_stride,             y_stride,             false};
    run_immediately(env.device(), env.pipelines(), quantize_x_ops(source, *xq, limits));
  }
  const uint64_t expert_bytes = tensor_bytes(format, w.rows, w.cols);
  c.invocations = expert_invocations(env, expert_bytes, tokens);
  double experts_read = 0;
  Transfer transfer(env.device(), 4096);
  // The accumulation's residual, the norm's weight and int8 output, and the arrival counters.
  std::optional<NormEpilogue> norm;
  const Buffer* residual = nullptr;
  const Buffer* arrivals = nullptr;
  const uint64_t arrival_bytes = moe_down_acc_norm_arrivals_bytes(w.rows);
  const uint64_t alignment = env.info().min_storage_buffer_offset_alignment;
  const uint64_t arrival_stride = (arrival_bytes + alignment - 1) / alignment * alignment;  // a binding offset
  if (kernel.acc_norm) {
    residual = &keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, w.rows, 41, "residual"));
    const Buffer& weight =
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, w.rows, 42, "norm w"));
    const Buffer& out =
        keep(c, Buffer(env.device(), deferred_norm_bytes(w.rows, limits), MemoryUse::Device, "norm out"));
    norm = NormEpilogue{TensorView::whole(weight), deferred_norm_in(TensorView::whole(out), w.rows, 1e-6f, limits)};
    const uint64_t all = arrival_stride * c.invocations;
    arrivals = &keep(c, Buffer(env.device(), all, MemoryUse::Device, "arrivals"));
    transfer.fill(*arrivals, 0, all, 0);
  }
  for (uint32_t i = 0; i < c.invocations; ++i) {
    const Routing r = make_routing(env, c, transfer, tokens, 1000 + i);
    const Buffer& copy = weights->copies[i % weights->copies.size()];
    const MoeDmmvProblem p{format,   TensorView::whole(copy), TensorView::whole(x), TensorView::whole(y), m, w.rows,
                           w.cols,   tokens,                  x_stride,             y_stride,             w.input};
    std::vector<Op> ops;
    if (kernel.glu) {
      ops = {moe_dmmv_intdot_glu_op(p, TensorView::whole(copy), *xq, r.logits, r.views, limits,
                                    GluEpilogue{GluActivation::Silu, *act})};
    } else if (kernel.acc_norm) {
      const MoeAccProblem acc{TensorView::whole(y), TensorView::whole(*residual), m, w.rows, 1, y_stride, w.rows};
      ops = {moe_down_acc_norm_op(p, *xq, r.views, acc, *norm, TensorView{arrivals, i * arrival_stride, arrival_bytes},
                                  limits, *kernel.intdot)};
    } else if (kernel.matmul) {
      ops = moe_matmul_ops(p, r.views, limits, *kernel.matmul);
    } else if (kernel.intdot) {
      ops = moe_dmmv_intdot_ops(p, *xq, r.views, limits, *kernel.intdot);
    } else {
      ops = moe_dmmv_ops(p, r.views, NumColsMode{}, limits,
                         kernel.tuning.value_or(moe_dmmv_tuning(env.info(), format, tokens)));
    }
    for (Op& op : ops) c.round.push_back(std::move(op));
    experts_read += r.experts;
  }
  const MoeDmmvCost cost =
      moe_dmmv_cost(format, w.rows, w.cols, 1, assignments, x_columns);  // the weights of one expert
  const double experts = experts_read / c.invocations;
  // int8 inputs: a byte per activation and 8 per block of 32 (quantize_x_op.h).
  const double x_bytes = kernel.intdot ? cost.x_bytes / 4 * (1.0 + 8.0 / 32.0) : cost.x_bytes;
  // The GLU form reads gate and up and writes act in int8 instead of y.
  const double y_bytes = kernel.glu ? cost.y_bytes / 4 * (1.0 + 8.0 / 32.0) : cost.y_bytes;
  c.cost = {stacks * (cost.weight_bytes * experts) + x_bytes + y_bytes, stacks * cost.flops};
  if (kernel.acc_norm) {  // and the accumulation's, which reads the rows back
    const KernelCost acc = moe_acc_norm_cost(w.rows, m.top_k);
    c.cost = {c.cost.bytes + acc.bytes, c.cost.flops + acc.flops};
  }
  return c;
}

// What a top-k benchmark dispatches: the routes alone (moe_topk), or with their work list in
// the same dispatch, for a decode token (moe_topk_group) or a prefill chunk
// (moe_topk_chunk_group, whose last workgroup groups the routes).
enum class TopkForm { Routes, TokenGroup, ChunkGroup };

// `tokens` tokens' router logits rotate; the routing they are written into does not (it is a
// few hundred bytes, freshly written in the op stream).
BenchCase topk_case(BenchEnv& env, uint32_t tokens, TopkForm form) {
  BenchCase c;
  const MoeShape& m = env.shapes().moe;
  const MoeRouting routing = routing_buffer(env, c, tokens);
  if (form == TopkForm::ChunkGroup) {  // its arrival count starts at zero, and each dispatch leaves it so
    const Op zero = fill_zero_op(routing.arrivals);
    run_immediately(env.device(), env.pipelines(), std::span(&zero, 1));
  }
  const uint64_t logits = uint64_t(m.n_experts) * tokens;
  c.invocations = rotation_copies(env.info(), 4 * logits, env.input_cache());
  for (uint32_t i = 0; i < c.invocations; ++i) {
    const TensorView copy = TensorView::whole(
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, logits, 1000 + i, "router logits")));
    switch (form) {
      case TopkForm::Routes: c.round.push_back(moe_topk_op(m, copy, m.n_experts, tokens, routing)); break;
      case TopkForm::TokenGroup: c.round.push_back(moe_topk_group_op(m, copy, routing)); break;
      case TopkForm::ChunkGroup:
        c.round.push_back(moe_topk_chunk_group_op(m, copy, m.n_experts, tokens, routing));
        break;
    }
  }
  c.cost = moe_topk_cost(m.n_experts, m.top_k, tokens);
  if (form != TopkForm::Routes) {  // and the grouping's, less its read of the ids, which stay on chip
    const KernelCost grouping = moe_group_cost(m.n_experts, m.top_k, tokens);
    c.cost = {c.cost.bytes + grouping.bytes - 4.0 * m.top_k * tokens, c.cost.flops + grouping.flops};
  }
  return c;
}

// Each invocation groups a routing of its own (made by topk beforehand).
BenchCase group_case(BenchEnv& env, uint32_t tokens) {
  BenchCase c;
  const MoeShape& m = env.shapes().moe;
  c.invocations = env.input_cache() == InputCache::Hot ? 1 : env.is_cpu_device() ? kCpuRotationCopies : 8;
  Transfer transfer(env.device(), 4096);
  for (uint32_t i = 0; i < c.invocations; ++i) {
    c.round.push_back(moe_group_op(m, tokens, make_routing(env, c, transfer, tokens, 1000 + i).views));
  }
  c.cost = moe_group_cost(m.n_experts, m.top_k, tokens);
  return c;
}

// The experts' outputs (C*K columns of hidden floats) rotate; the residual and the routing do not.
// With `norm` (one token), the form that also writes the next RMSNorm's deferred int8 input.
BenchCase acc_case(BenchEnv& env, uint32_t tokens, bool norm = false) {
  BenchCase c;
  const ShapeSet& s = env.shapes();
  const MoeShape& m = s.moe;
  const uint32_t n = s.moe_hidden, stride = (n + 3) / 4 * 4;
  const uint32_t assignments = tokens * m.top_k;
  const Buffer& x = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                             uint64_t(stride) * tokens, 41, "residual"));
  Transfer transfer(env.device(), 4096);
  const Routing r = make_routing(env, c, transfer, tokens, 1000);
  const uint64_t out_floats = uint64_t(stride) * assignments;
  std::optional<NormEpilogue> epilogue;
  if (norm) {
    const BindingLimits limits = BindingLimits::of(env.info());
    const Buffer& weight = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, n, 42, "norm w"));
    const Buffer& out = keep(c, Buffer(env.device(), deferred_norm_bytes(n, limits), MemoryUse::Device, "norm out"));
    epilogue = NormEpilogue{TensorView::whole(weight), deferred_norm_in(TensorView::whole(out), n, 1e-6f, limits)};
  }
  c.invocations = rotation_copies(env.info(), 4 * out_floats, env.input_cache());
  for (uint32_t i = 0; i < c.invocations; ++i) {
    const Buffer& out =
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, out_floats, 60 + i, "expert out"));
    const MoeAccProblem p{TensorView::whole(out), TensorView::whole(x), m, n, tokens, stride, stride};
    c.round.push_back(epilogue ? moe_acc_norm_op(p, r.views, *epilogue) : moe_acc_op(p, r.views));
  }
  c.cost = norm ? moe_acc_norm_cost(n, m.top_k) : moe_acc_cost(n, m.top_k, tokens);
  return c;
}

}  // namespace

void register_moe_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& s = benchmarks.env().shapes();
  const std::string experts = "e:" + std::to_string(s.moe.n_experts) + "/";
  benchmarks.add("moe_topk_group/" + experts + routing_name(s, 1),
                 [](BenchEnv& env) { return topk_case(env, 1, TopkForm::TokenGroup); });
  if (has_moe_acc_norm_kernel()) {
    benchmarks.add("moe_acc_norm/n:" + std::to_string(s.moe_hidden) + "/" + routing_name(s, 1),
                   [](BenchEnv& env) { return acc_case(env, 1, true); });
  }
  for (const uint32_t tokens : s.moe_tokens) {
    benchmarks.add("moe_topk/" + experts + routing_name(s, tokens),
                   [=](BenchEnv& env) { return topk_case(env, tokens, TopkForm::Routes); });
    if (tokens > 1 && moe_topk_chunk_group_fits(s.moe, tokens)) {
      benchmarks.add("moe_topk_chunk_group/" + experts + routing_name(s, tokens),
                     [=](BenchEnv& env) { return topk_case(env, tokens, TopkForm::ChunkGroup); });
    }
    benchmarks.add("moe_group/" + experts + routing_name(s, tokens),
                   [=](BenchEnv& env) { return group_case(env, tokens); });
    benchmarks.add("moe_acc/n:" + std::to_string(s.moe_hidden) + "/" + routing_name(s, tokens),
                   [=](BenchEnv& env) { return acc_case(env, tokens); });
  }
  // Format, then role outermost: the cases of one stacked tensor run back to back and share its
  // weight copies (WeightCache).
  for (const WeightFormat format : kExpertFormats) {
    for (const ExpertRole role : {ExpertRole::Gate, ExpertRole::Down}) {
      for (const uint32_t tokens : s.moe_tokens) {
        const std::string name = "moe_dmmv/" + std::string(format_name(format)) + "/" + shape_name(s, role) + "/" +
                                 routing_name(s, tokens);
        benchmarks.add(name, [=](BenchEnv& env) { return moe_dmmv_case(env, format, role, tokens); });
      }
    }
  }
  // The same on int8 inputs (dmmv_activations: int8), where the device runs the integer dot:
  // the engine's shape, and the shapes around it as a tuning family.
  for (const WeightFormat format : {WeightFormat::Q8_0, WeightFormat::Q4_K, WeightFormat::Q6_K}) {
    if (!moe_dmmv_intdot_supported(benchmarks.env().info(), format)) continue;
    for (const ExpertRole role : {ExpertRole::Gate, ExpertRole::Down}) {
      for (const uint32_t tokens : s.moe_tokens) {
        if (role == ExpertRole::Gate && tokens == 1) {
          benchmarks.add("moe_dmmv_intdot_glu/" + std::string(format_name(format)) + "/" + shape_name(s, role) + "/" +
                             routing_name(s, tokens),
                         [=](BenchEnv& env) {
                           return moe_dmmv_case(env, format, role, tokens,
                                                {std::nullopt, std::nullopt, DmmvIntdotTuning{}, true});
                         });
        }
        if (role == ExpertRole::Down && tokens == 1 && find_kernel(moe_down_acc_norm_kernel_name(format)) != nullptr) {
          // Decode's down with the accumulation and the norm: the engine's shape, and the
          // shapes of whole teams of 32 whose rows divide a block as a tuning family.
          const std::string acc_norm = std::string(format_name(format)) + "/" + shape_name(s, role) + "/" +
                                       routing_name(s, tokens);
          const auto add_acc_norm = [&](const std::string& name, DmmvIntdotTuning t) {
            benchmarks.add(name, [=](BenchEnv& env) {
              ExpertKernel k{std::nullopt, std::nullopt, t};
              k.acc_norm = true;
              return moe_dmmv_case(env, format, role, tokens, k);
            });
          };
          add_acc_norm("moe_dmmv_intdot_acc_norm/" + acc_norm, {});
          for (const uint32_t threads : {32u, 64u, 128u}) {
            for (const uint32_t rows : {1u, 2u, 4u, 8u}) {
              for (const uint32_t unroll : {1u, 2u}) {
                for (const uint32_t lanes : {4u, 8u, 16u, 32u, 64u, 128u}) {
                  // Row teams of `lanes`, a workgroup's rows still dividing a block of 32.
                  if (lanes > threads || 32 % (rows * (threads / lanes)) != 0) continue;
                  DmmvIntdotTuning t{threads, rows, unroll};
                  t.lanes = lanes;
                  add_acc_norm("moe_dmmv_intdot_acc_norm_tuning/" + acc_norm + "/threads:" + std::to_string(threads) +
                                   "/rows:" + std::to_string(rows) + "/unroll:" + std::to_string(unroll) +
                                   (lanes < threads ? "/lanes:" + std::to_string(lanes) : std::string()),
                               t);
                }
              }
            }
          }
        }
        const std::string name = "moe_dmmv_intdot/" + std::string(format_name(format)) + "/" + shape_name(s, role) +
                                 "/" + routing_name(s, tokens);
        benchmarks.add(name, [=](BenchEnv& env) {
          return moe_dmmv_case(env, format, role, tokens, {std::nullopt, std::nullopt, DmmvIntdotTuning{}});
        });
        // Assignments per pass too: an expert serves C * K / E of a chunk's assignments on
        // average, and a pass computes all of its columns whether or not they are assigned.
        for (const uint32_t num_cols : {1u, 2u, 4u, 8u}) {
          if (num_cols > tokens) continue;  // a chunk of fewer tokens never fills the pass
          for (const uint32_t threads : {32u, 64u, 128u}) {
            for (const uint32_t rows : {1u, 2u, 4u, 8u}) {
              for (const uint32_t unroll : {1u, 2u}) {
                // Row teams narrower than the workgroup at the engine's passes of one: rows of
                // few chunks (down's) leave most of a whole-workgroup team idle.
                for (const uint32_t lanes : {4u, 8u, 16u, 32u, 64u, 128u}) {
                  if (lanes > threads || (lanes < threads && num_cols != 1)) continue;
                  DmmvIntdotTuning t{threads, rows, unroll};
                  t.num_cols = num_cols;
                  t.lanes = lanes;
                  const std::string tuned =
                      "moe_dmmv_intdot_tuning/" + std::string(format_name(format)) + "/" + shape_name(s, role) + "/" +
                      routing_name(s, tokens) + "/threads:" + std::to_string(threads) + "/rows:" +
                      std::to_string(rows) + "/unroll:" + std::to_string(unroll) + "/num_cols:" +
                      std::to_string(num_cols) + (lanes < threads ? "/lanes:" + std::to_string(lanes) : std::string());
                  benchmarks.add(tuned, [=](BenchEnv& env) {
                    return moe_dmmv_case(env, format, role, tokens, {std::nullopt, std::nullopt, t});
                  });
                }
              }
            }
          }
        }
      }
    }
  }
  // A prefill chunk's experts through the tiled matmul the engine takes for them (prefill:
  // matmul): the scalar kernel everywhere, the cooperative-matrix one where the device has it.
  for (const WeightFormat format : kExpertFormats) {
    for (const ExpertRole role : {ExpertRole::Gate, ExpertRole::Down}) {
      for (const uint32_t tokens : s.moe_tokens) {
        for (const bool coopmat : {false, true}) {
          if (tokens == 1) continue;
          MatmulChoice choice = choose_moe_matmul(benchmarks.env().info(), format);
          if (coopmat && !choice.coopmat) continue;  // no matrix units here (or no kernel)
          choice.coopmat = coopmat;
          const std::string name = "moe_matmul/" + std::string(format_name(format)) + "/" +
                                   (coopmat ? "coopmat/" : "scalar/") + shape_name(s, role) + "/" +
                                   routing_name(s, tokens);
          benchmarks.add(name,
                         [=](BenchEnv& env) { return moe_dmmv_case(env, format, role, tokens, {std::nullopt, choice}); });
        }
      }
    }
  }
  // The cooperative-matrix tiles for experts: rows per workgroup and per subgroup block, the K
  // step and the stages, at 32 tokens per tile (wider tiles only idle: an expert serves C*K/E
  // assignments on average).
  for (const WeightFormat format : kExpertFormats) {
    MatmulChoice base = choose_moe_matmul(benchmarks.env().info(), format);
    if (!base.coopmat) continue;
    for (const ExpertRole role : {ExpertRole::Gate, ExpertRole::Down}) {
      for (const uint32_t tokens : s.moe_tokens) {
        if (tokens == 1) continue;
        for (const uint32_t bm : {32u, 64u, 128u}) {
          for (const uint32_t wm : {32u, 64u}) {
            for (const uint32_t bk : {32u, 64u}) {
              for (const uint32_t stages : {1u, 2u}) {
                MatmulChoice choice = base;
                choice.coop = CoopmatTiling{bm, 32, bk, wm, 32, stages};
                if (bm % wm != 0 || bk % coopmat_weight_group(format) != 0 ||
                    !coopmat_tiling_fits(benchmarks.env().info(), choice.coop)) {
                  continue;
                }
                const std::string name = "moe_matmul_coopmat_tuning/" + std::string(format_name(format)) + "/" +
                                         shape_name(s, role) + "/" + routing_name(s, tokens) + "/bm:" +
                                         std::to_string(bm) + "/wm:" + std::to_string(wm) + "/bk:" +
                                         std::to_string(bk) + "/stages:" + std::to_string(stages);
                benchmarks.add(name, [=](BenchEnv& env) {
                  return moe_dmmv_case(env, format, role, tokens, {std::nullopt, choice});
                });
              }
            }
          }
        }
      }
    }
  }
  // The expert DMMV's workgroup shape is a choice per device and column count: these time each
  // candidate (threads, rows per workgroup and, for a chunk, assignments per pass).
  for (const WeightFormat format : kExpertFormats) {
    for (const ExpertRole role : {ExpertRole::Gate, ExpertRole::Down}) {
      for (const uint32_t tokens : s.moe_tokens) {
        for (const uint32_t threads : {32u, 64u, 128u, 256u}) {
          for (const uint32_t rows : {1u, 2u, 4u, 8u, 16u}) {
            for (const uint32_t num_cols : {1u, 2u, 4u, 8u}) {
              if ((tokens == 1 && num_cols > 1) || rows * num_cols > 64) continue;
              const MoeDmmvTuning tuning{threads, rows, num_cols};
              const std::string name = "moe_dmmv_tuning/" + std::string(format_name(format)) + "/" +
                                       shape_name(s, role) + "/" + routing_name(s, tokens) + "/threads:" +
                                       std::to_string(threads) + "/rows:" + std::to_string(rows) + "/num_cols:" +
                                       std::to_string(num_cols);
              benchmarks.add(name,
                             [=](BenchEnv& env) { return moe_dmmv_case(env, format, role, tokens, {tuning}); });
            }
          }
        }
      }
    }
  }
}

}  // namespace pb::bench
