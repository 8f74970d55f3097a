// Flash attention: decode (one query token, kernels/attn_decode.comp and attn_merge.comp when
// the context is split) at several context lengths, the same with the token's own q/k norm,
// RoPE and KV write in front (kernels/attn_decode_rope.comp, as the engine's decode runs it;
// Qwen3's form: NEOX rotation and a per-head norm), and causal prefill of a chunk
// (kernels/attn_prefill.comp). The K/V cache rotates; q, the token's k and v, o and the split
// scratch do not (they are small and, in the op stream, freshly written). The int8 decode's
// forms of both, which also quantize the output for the o-projection, run as *_quantize.
#include <optional>

#include "engine/ops/attention_decode_op.h"
#include "engine/ops/attention_prefill_op.h"
#include "engine/ops/attention_tile.h"
#include "engine/ops/quantizing_producer.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"
#include "kernels/registry.h"

namespace pb::bench {
namespace {

// Rotation copies of one layer's K and V cache, filled with synthetic float16 values.
std::vector<KvCacheView> kv_copies(BenchEnv& env, BenchCase& c, const AttentionShape& s) {
  const uint64_t halves = s.cache_bytes() / 2;
  const uint32_t copies = rotation_copies(env.info(), 2 * s.cache_bytes(), env.input_cache());
  std::vector<KvCacheView> views;
  for (uint32_t i = 0; i < copies; ++i) {
    const Buffer& k = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F16, halves,
                                               100 + 2 * i, "k cache"));
    const Buffer& v = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F16, halves,
                                               101 + 2 * i, "v cache"));
    views.push_back({TensorView::whole(k), TensorView::whole(v)});
  }
  c.invocations = copies;
  return views;
}

// attn_decode_rope's inputs for the token at `pos` whose q is `q`: its own projected k and v
// and the q/k norms, made once per case (they do not rotate).
AttentionDecodeRope rope_inputs(BenchEnv& env, BenchCase& c, const AttentionShape& s, const TensorView& q,
                                uint32_t pos) {
  const uint64_t kv_floats = uint64_t(s.n_kv_heads) * s.head_dim;
  auto values = [&](uint64_t floats, uint32_t seed, const char* name) {
    return TensorView::whole(
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, floats, seed, name)));
  };
  const TensorView k = values(kv_floats, 5, "k"), v = values(kv_floats, 6, "v");
  QkNormRopeProblem qk{q, k, values(s.head_dim, 7, "q_norm"), values(s.head_dim, 8, "k_norm")};
  qk.n_q_heads = s.n_heads;
  qk.n_k_heads = s.n_kv_heads;
  qk.head_dim = qk.rope_dims = s.head_dim;
  qk.pos0 = pos;
  qk.q_stride = s.n_heads * s.head_dim;
  qk.k_stride = static_cast<uint32_t>(kv_floats);
  qk.theta = 1000000.0f;
  qk.style = RopeStyle::Neox;
  qk.qk_norm = true;
  return {qk, v};
}

// `quantize`: the form int8 decode runs, whose last dispatch also writes the output's int8 blocks
// for the o-projection (attention_decode_quantize_ops: attn_decode_quantize,
// attn_decode_rope_quantize, or attn_merge_quantize after split partials); with `gated` too,
// Qwen3.5's, whose output gate that dispatch applies first (the _quantize_gated twins).
BenchCase decode_case(BenchEnv& env, uint32_t ctx, bool rope, const AttentionDecodeTuning& tuning = {},
                      bool quantize = false, bool gated = false) {
  BenchCase c;
  AttentionShape s = env.shapes().attention;
  s.max_ctx = ctx;
  const uint64_t q_floats = uint64_t(s.n_heads) * s.head_dim;
  const Buffer& q =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, q_floats, 3, "q"));
  const Buffer& o = keep(c, Buffer(env.device(), q_floats * 4, MemoryUse::Device, "o"));
  const uint64_t scratch_bytes =
      attention_decode_scratch_bytes(s.n_heads, s.head_dim, ctx, tuning.split);
  const Buffer& scratch = keep(c, Buffer(env.device(), std::max<uint64_t>(scratch_bytes, 256),
                                         MemoryUse::Device, "attention scratch"));
  const BindingLimits limits = BindingLimits::of(env.info());
  std::optional<AttentionDecodeRope> own_token;
  if (rope) own_token = rope_inputs(env, c, s, TensorView::whole(q), ctx - 1);
  const auto n = static_cast<uint32_t>(q_floats);
  const QuantizedX qx =
      quantize ? quantized_x_in(TensorView::whole(keep(c, Buffer(env.device(), quantized_x_bytes(n, 1, limits),
                                                                 MemoryUse::Device, "o quantized"))),
                                n, 1, limits)
               : QuantizedX{};
  const TensorView gate =
      gated ? TensorView::whole(keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, q_floats, 5,
                                                         "output gate")))
            : TensorView{};
  for (const KvCacheView& cache : kv_copies(env, c, s)) {
    const AttentionDecodeProblem p{
        s, cache, TensorView::whole(q), TensorView::whole(o), TensorView::whole(scratch), ctx - 1, own_token};
    const auto ops = quantize ? attention_decode_quantize_ops(p, qx, limits, tuning, gate)
                              : attention_decode_ops(p, limits, tuning);
    c.round.insert(c.round.end(), ops.begin(), ops.end());
  }
  c.cost = attention_decode_cost(s, ctx);
  if (quantize) c.cost.bytes += 1.25 * double(q_floats);  // the int8 blocks: a byte and a 4-byte scale per 32
  if (gated) c.cost.bytes += 4.0 * double(q_floats);      // the gate read
  return c;
}

BenchCase prefill_case(BenchEnv& env, uint32_t tokens) {
  BenchCase c;
  AttentionShape s = env.shapes().attention;
  s.max_ctx = tokens;
  const uint32_t stride = s.n_heads * s.head_dim;
  const uint64_t floats = uint64_t(tokens) * stride;
  const Buffer& q =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, floats, 4, "q"));
  const Buffer& o = keep(c, Buffer(env.device(), floats * 4, MemoryUse::Device, "o"));
  const BindingLimits limits = BindingLimits::of(env.info());
  for (const KvCacheView& cache : kv_copies(env, c, s)) {
    const AttentionPrefillProblem p{s,      cache, TensorView::whole(q), TensorView::whole(o), 0, tokens,
                                    stride, stride};
    const auto ops = attention_prefill_ops(p, limits);
    c.round.insert(c.round.end(), ops.begin(), ops.end());
  }
  c.cost = attention_prefill_cost(s, tokens);
  return c;
}

}  // namespace

void register_attention_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& shapes = benchmarks.env().shapes();
  for (const uint32_t ctx : shapes.decode_contexts) {
    benchmarks.add("attn_decode/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                   [=](BenchEnv& env) { return decode_case(env, ctx, false); });
    benchmarks.add("attn_decode_rope/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                   [=](BenchEnv& env) { return decode_case(env, ctx, true); });
    if (quantizing_producers_compiled()) {  // int8 decode's forms
      benchmarks.add("attn_decode_quantize/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                     [=](BenchEnv& env) { return decode_case(env, ctx, false, {}, true); });
      benchmarks.add("attn_decode_rope_quantize/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                     [=](BenchEnv& env) { return decode_case(env, ctx, true, {}, true); });
      if (find_kernel("attn_decode_quantize_gated") != nullptr) {  // Qwen3.5's gated attention
        benchmarks.add("attn_decode_quantize_gated/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                       [=](BenchEnv& env) { return decode_case(env, ctx, false, {}, true, true); });
        benchmarks.add("attn_decode_rope_quantize_gated/" + shapes.attention_name() + "/ctx:" + std::to_string(ctx),
                       [=](BenchEnv& env) { return decode_case(env, ctx, true, {}, true, true); });
      }
    }
  }
  // The decode kernel with the RoPE under each candidate tile and smallest split (which still
  // doubles toward the tuning's target workgroups on long contexts; short contexts are not run
  // as one split here, so the split is the one named). A tile that does not fit the shared
  // memory as named (decode_tile would take fewer heads or keys) is left out, not run under a
  // name it does not have.
  const AttentionShape& s = shapes.attention;
  const uint64_t budget =
      AttentionDecodeTuning{}.shared_bytes - attention_rope_shared_bytes(s.gqa_ratio(), s.head_dim);
  for (const uint32_t ctx : shapes.decode_contexts) {
    for (const uint32_t heads : {1u, 2u, 4u}) {
      for (const uint32_t threads : {64u, 128u, 256u}) {
        for (const uint32_t keys : {16u, 32u, 64u}) {
          const AttentionTile tile = decode_tile(s.gqa_ratio(), s.head_dim, threads, budget, heads, keys);
          if (tile.heads != heads || tile.keys != keys) continue;
          for (const uint32_t split : {16u, 32u, 64u}) {
            AttentionDecodeTuning tuning;
            tuning.heads = heads;
            tuning.threads = threads;
            tuning.keys = keys;
            tuning.split = split;
            tuning.one_split_max = 0;
            const std::string name = "attn_decode_rope_tuning/" + shapes.attention_name() + "/ctx:" +
                                     std::to_string(ctx) + "/heads:" + std::to_string(heads) + "/threads:" +
                                     std::to_string(threads) + "/keys:" + std::to_string(keys) +
                                     "/split:" + std::to_string(split);
            benchmarks.add(name, [=](BenchEnv& env) { return decode_case(env, ctx, true, tuning); });
          }
        }
      }
    }
  }
  const uint32_t tokens = shapes.prefill_tokens;
  benchmarks.add("attn_prefill/" + shapes.attention_name() + "/tokens:" + std::to_string(tokens),
                 [=](BenchEnv& env) { return prefill_case(env, tokens); });
}

}  // namespace pb::bench
