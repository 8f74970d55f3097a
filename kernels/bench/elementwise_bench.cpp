// The element-wise and reduction kernels at model widths, for a decode column and a prefill chunk:
// rmsnorm, qk_norm_rope (Qwen3's per-head norms with NeoX RoPE, the costlier variant; alone and
// with the KV write the forward pass fuses into it), kv_write (that KV write alone,
// kernels/kv_write.comp: what the fused form adds), glu (SwiGLU), the norm and GLU forms that also
// quantize their output (where the build has them), add (the residual add in place, as the shared
// expert's output and the post-norms reach the residual), sigmoid_mul (Qwen3.5's attention output
// gate: a gate per element of the attention output, n_heads * head_dim wide), argmax over the
// vocabulary (one workgroup, and the sliced form), and the reductions of a split matmul that apply
// a gated unit or a shared expert's sigmoid gate with the residual add (matmul_split_reduce_glu,
// matmul_split_reduce_gated). Their inputs rotate like the others'; they are small enough that the
// cache may hold them anyway, as it does in the op stream.
//
// And the floor under all of them: a dispatch that zeroes 64 floats, so its time is what any
// dispatch behind a global barrier costs (launch, drain, barrier) before it does any work; once
// with one pipeline back to back, once alternating two (zero, then add 64 floats), as an op
// stream does.
#include <string>
#include <vector>

#include "engine/ops/add_op.h"
#include "engine/ops/argmax_op.h"
#include "engine/ops/fill_zero_op.h"
#include "engine/ops/glu_op.h"
#include "engine/ops/kv_write_op.h"
#include "engine/ops/matmul_split.h"
#include "engine/ops/qk_norm_rope_op.h"
#include "engine/ops/quantizing_producer.h"
#include "engine/ops/rope_kv_write_op.h"
#include "engine/ops/rmsnorm_op.h"
#include "engine/ops/sigmoid_mul_op.h"
#include "harness/immediate.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {
namespace {

// The rotation copies of an input of `count` floats, each a different synthetic vector; sets the
// case's invocation count.
std::vector<const Buffer*> float_copies(BenchEnv& env, BenchCase& c, uint64_t count, uint32_t tensor_id,
                                        const char* name) {
  std::vector<const Buffer*> copies;
  const uint32_t n = rotation_copies(env.info(), 4 * count, env.input_cache());
  for (uint32_t i = 0; i < n; ++i) {
    copies.push_back(&keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, count,
                                               tensor_id + 16 * i, name)));
  }
  c.invocations = n;
  return copies;
}

// Storage for the int8 form of `cols` columns of n, for the quantizing producers.
QuantizedX quantized_storage(BenchEnv& env, BenchCase& c, uint32_t n, uint32_t cols) {
  const BindingLimits limits = BindingLimits::of(env.info());
  const Buffer& b =
      keep(c, Buffer(env.device(), quantized_x_bytes(n, cols, limits), MemoryUse::Device, "quantized"));
  return quantized_x_in(TensorView::whole(b), n, cols, limits);
}

// `quantize`: rmsnorm_quantize, which also writes y's int8 form (1.25 bytes per element more).
BenchCase rmsnorm_case(BenchEnv& env, uint32_t n, uint32_t cols, bool quantize) {
  BenchCase c;
  const uint64_t floats = uint64_t(n) * cols;
  const Buffer& weight =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, n, 5, "norm weight"));
  const Buffer& y = keep(c, Buffer(env.device(), floats * 4, MemoryUse::Device, "rmsnorm y"));
  const QuantizedX q = quantize ? quantized_storage(env, c, n, cols) : QuantizedX{};
  for (const Buffer* x : float_copies(env, c, floats, 6, "rmsnorm x")) {
    const RmsNormProblem p{TensorView::whole(*x), TensorView::whole(weight), TensorView::whole(y), n, cols, n, n,
                           1e-6f, false};
    c.round.push_back(quantize ? rmsnorm_quantize_op(p, q) : rmsnorm_op(p));
  }
  c.cost = rmsnorm_cost(n, cols);
  if (quantize) c.cost.bytes += 1.25 * double(floats);
  return c;
}

// `write_kv`: the form that also writes k and v into a float16 KV cache (rope_kv_write_op), as
// the forward pass runs it.
BenchCase qk_norm_rope_case(BenchEnv& env, uint32_t cols, bool write_kv) {
  BenchCase c;
  const AttentionShape& s = env.shapes().attention;
  const uint32_t q_stride = s.n_heads * s.head_dim;
  const uint32_t k_stride = s.n_kv_heads * s.head_dim;
  const Buffer& q_norm =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, s.head_dim, 7, "q norm"));
  const Buffer& k_norm =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, s.head_dim, 8, "k norm"));
  const uint64_t cache_bytes = uint64_t(k_stride) * cols * 2;  // max_ctx = cols
  const Buffer* k_cache = write_kv ? &keep(c, Buffer(env.device(), cache_bytes, MemoryUse::Device, "k cache")) : nullptr;
  const Buffer* v_cache = write_kv ? &keep(c, Buffer(env.device(), cache_bytes, MemoryUse::Device, "v cache")) : nullptr;
  // q, k (and v) of a copy live in one buffer, q first: one rotation unit.
  const uint64_t q_floats = uint64_t(q_stride) * cols, k_floats = uint64_t(k_stride) * cols;
  const uint64_t floats = q_floats + k_floats * (write_kv ? 2 : 1);
  for (const Buffer* qkv : float_copies(env, c, floats, 9, "q and k")) {
    const TensorView whole = TensorView::whole(*qkv);
    QkNormRopeProblem p;
    p.q = whole.slice(0, q_floats * 4);
    p.k = whole.slice(q_floats * 4, k_floats * 4);
    p.q_norm = TensorView::whole(q_norm);
    p.k_norm = TensorView::whole(k_norm);
    p.n_q_heads = s.n_heads;
    p.n_k_heads = s.n_kv_heads;
    p.head_dim = s.head_dim;
    p.rope_dims = s.head_dim;
    p.ncols = cols;
    p.q_stride = q_stride;
    p.k_stride = k_stride;
    p.theta = 1000000.0f;
    p.style = RopeStyle::Neox;
    p.qk_norm = true;
    if (!write_kv) {
      c.round.push_back(qk_norm_rope_op(p));
      continue;
    }
    const KvWriteProblem kv{p.k, whole.slice((q_floats + k_floats) * 4, k_floats * 4), TensorView::whole(*k_cache),
                            TensorView::whole(*v_cache), s.n_kv_heads, s.head_dim, cols, 0, cols, k_stride, k_stride};
    c.round.push_back(rope_kv_write_op(p, kv));
  }
  c.cost = qk_norm_rope_cost(s.n_heads, s.n_kv_heads, s.head_dim, cols, true);
  if (write_kv) c.cost.bytes += 8.0 * double(k_floats);  // v read, k and v written as halves
  return c;
}

// `quantize`: glu_quantize, which also writes the output's int8 form.
BenchCase glu_case(BenchEnv& env, uint32_t n, uint32_t cols, bool quantize) {
  BenchCase c;
  const uint64_t floats = uint64_t(n) * cols;
  const Buffer& out = keep(c, Buffer(env.device(), floats * 4, MemoryUse::Device, "glu out"));
  const QuantizedX q = quantize ? quantized_storage(env, c, n, cols) : QuantizedX{};
  // gate and up of a copy are the two halves of one buffer, as a fused gate/up projection writes.
  for (const Buffer* gate_up : float_copies(env, c, 2 * floats, 10, "gate and up")) {
    const TensorView whole = TensorView::whole(*gate_up);
    const GluProblem p{whole.slice(0, floats * 4), whole.slice(floats * 4, floats * 4), TensorView::whole(out), n,
                       cols, n, n, n, GluActivation::Silu};
    c.round.push_back(quantize ? glu_quantize_op(p, q) : glu_op(p));
  }
  c.cost = glu_cost(n, cols);
  if (quantize) c.cost.bytes += 1.25 * double(floats);
  return c;
}

// The residual add in place (x += b; the shared expert's output, a post-norm's). x and b of a
// copy are the two halves of one buffer (b starts on 256 bytes: n is a multiple of 64 floats).
BenchCase add_case(BenchEnv& env, uint32_t n, uint32_t cols) {
  BenchCase c;
  const uint64_t floats = uint64_t(n) * cols;
  for (const Buffer* xb : float_copies(env, c, 2 * floats, 12, "residual and addend")) {
    const TensorView whole = TensorView::whole(*xb);
    c.round.push_back(add_in_place_op(
        AddInPlaceProblem{whole.slice(0, floats * 4), whole.slice(floats * 4, floats * 4), n, cols, n, n}));
  }
  c.cost = add_cost(n, cols);
  return c;
}

// Qwen3.5's attention output gate: o (q's width, n_heads * head_dim) *= sigmoid(gate), a gate
// per element. Gate and o of a copy are the two halves of one buffer.
BenchCase sigmoid_mul_case(BenchEnv& env, uint32_t cols) {
  BenchCase c;
  const AttentionShape& s = env.shapes().attention;
  const uint32_t q_dim = s.n_heads * s.head_dim;
  const uint64_t floats = uint64_t(q_dim) * cols;
  for (const Buffer* gate_o : float_copies(env, c, 2 * floats, 13, "gate and o")) {
    const TensorView whole = TensorView::whole(*gate_o);
    c.round.push_back(sigmoid_mul_op(SigmoidMulProblem{whole.slice(0, floats * 4), whole.slice(floats * 4, floats * 4),
                                                       q_dim, cols, q_dim, q_dim, false}));
  }
  c.cost = sigmoid_mul_cost(q_dim, cols);
  return c;
}

// The KV write alone, into a float16 cache of `cols` positions from position 0 (as
// qk_norm_rope_kv's). k and v of a copy are the two halves of one buffer.
BenchCase kv_write_case(BenchEnv& env, uint32_t cols) {
  BenchCase c;
  const AttentionShape& s = env.shapes().attention;
  const uint32_t kv_dim = s.n_kv_heads * s.head_dim;
  const uint64_t floats = uint64_t(kv_dim) * cols;
  const uint64_t cache_bytes = floats * 2;  // max_ctx = cols
  const Buffer& k_cache = keep(c, Buffer(env.device(), cache_bytes, MemoryUse::Device, "k cache"));
  const Buffer& v_cache = keep(c, Buffer(env.device(), cache_bytes, MemoryUse::Device, "v cache"));
  for (const Buffer* kv : float_copies(env, c, 2 * floats, 14, "k and v")) {
    const TensorView whole = TensorView::whole(*kv);
    c.round.push_back(kv_write_op(KvWriteProblem{whole.slice(0, floats * 4), whole.slice(floats * 4, floats * 4),
                                                 TensorView::whole(k_cache), TensorView::whole(v_cache), s.n_kv_heads,
                                                 s.head_dim, cols, 0, cols, kv_dim, kv_dim}));
  }
  c.cost = kv_write_cost(s, cols);
  return c;
}

// `sliced`: argmax_sliced_op.
BenchCase argmax_case(BenchEnv& env, uint32_t vocab, uint32_t cols, bool sliced) {
  BenchCase c;
  const uint64_t floats = uint64_t(vocab) * cols;
  // Token ids by position: a binding window aligned to the device's offset alignment.
  const uint64_t token_bytes = std::max<uint64_t>(4 * cols, env.info().min_storage_buffer_offset_alignment);
  const Buffer& tokens = keep(c, Buffer(env.device(), token_bytes, MemoryUse::Device, "tokens"));
  const Buffer& top2 = keep(c, Buffer(env.device(), 16ull * cols, MemoryUse::Device, "top2"));
  const Buffer& partials =
      keep(c, Buffer(env.device(), argmax_partials_bytes(vocab, cols), MemoryUse::Device, "argmax partials"));
  if (sliced) {  // its arrival counters start at zero, and each dispatch leaves them so
    const Op zero = fill_zero_op(TensorView::whole(partials));
    run_immediately(env.device(), env.pipelines(), std::span(&zero, 1));
  }
  const BindingLimits limits = BindingLimits::of(env.info());
  for (const Buffer* logits : float_copies(env, c, floats, 11, "logits")) {
    const ArgmaxProblem p{TensorView::whole(*logits), TensorView::whole(tokens), TensorView::whole(top2), vocab,
                          cols, vocab, 0, TensorView::whole(partials)};
    c.round.push_back(sliced ? argmax_sliced_op(p, limits) : argmax_op(p, limits));
  }
  c.cost = argmax_cost(vocab, cols);
  return c;
}

// The reductions of a split matmul with an epilogue, over slots of synthetic sums in the
// default narrow tiling (256 rows x 32 tokens) for a chunk of `cols` tokens: the gated unit of
// an n-wide stacked gate and up (`glu`), or the sigmoid gate per token and the residual add of
// an n-row projection.
BenchCase split_reduce_case(BenchEnv& env, uint32_t n, uint32_t cols, uint32_t splits, bool glu) {
  BenchCase c;
  const CoopmatTiling tiling{256, 32, 32, 32, 32, 2};
  const uint32_t rows = glu ? 2 * n : n;
  const uint64_t tiles = uint64_t(ceil_div(rows, tiling.bm)) * ceil_div(cols, tiling.bn);
  const uint64_t slots = tiles * splits * tiling.bm * tiling.bn;
  const uint64_t floats = uint64_t(n) * cols;
  const Buffer& out = keep(c, Buffer(env.device(), floats * 4, MemoryUse::Device, "reduced"));
  const Buffer& gate =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, cols, 14, "sigmoid gates"));
  const BindingLimits limits = BindingLimits::of(env.info());
  for (const Buffer* sums : float_copies(env, c, slots, 15, "split sums")) {
    const SplitSlots s{tiling, splits, TensorView::whole(*sums), rows, cols};
    if (glu) {
      GluProblem p{TensorView{}, TensorView{}, TensorView::whole(out), n, cols, n, n, n, GluActivation::Silu};
      c.round.push_back(matmul_split_reduce_glu_op(s, p, limits));
    } else {
      c.round.push_back(matmul_split_reduce_gated_op(s, TensorView::whole(gate), 1, TensorView::whole(out), n, limits));
    }
  }
  c.cost = glu ? split_reduce_glu_cost(n, cols, splits) : split_reduce_gated_cost(n, cols, splits);
  return c;
}

// `alternating`: each invocation is followed by one of another kernel, so every dispatch binds
// a pipeline other than its predecessor's.
BenchCase dispatch_floor_case(BenchEnv& env, bool alternating) {
  BenchCase c;
  const Buffer& target = keep(c, Buffer(env.device(), 256, MemoryUse::Device, "zeroed"));
  c.round.push_back(fill_zero_op(TensorView::whole(target)));
  c.invocations = 1;
  c.cost = {256.0, 0.0};
  if (alternating) {
    const Buffer& sum = keep(c, Buffer(env.device(), 256, MemoryUse::Device, "sum"));
    c.round.push_back(add_in_place_op(AddInPlaceProblem{TensorView::whole(sum), TensorView::whole(target), 64, 1, 64, 64}));
    c.invocations = 2;
    c.cost = {256.0 + 768.0 / 2, 64.0 / 2};  // per invocation: the mean of the two
  }
  return c;
}

}  // namespace

void register_elementwise_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& s = benchmarks.env().shapes();
  for (const uint32_t cols : s.activation_cols) {
    const std::string suffix = "/cols:" + std::to_string(cols);
    const uint32_t hidden = s.hidden;
    const uint32_t ffn = s.ffn;
    benchmarks.add("rmsnorm/n:" + std::to_string(hidden) + suffix,
                   [=](BenchEnv& env) { return rmsnorm_case(env, hidden, cols, false); });
    benchmarks.add("qk_norm_rope/" + s.attention_name() + suffix,
                   [=](BenchEnv& env) { return qk_norm_rope_case(env, cols, false); });
    benchmarks.add("qk_norm_rope_kv/" + s.attention_name() + suffix,
                   [=](BenchEnv& env) { return qk_norm_rope_case(env, cols, true); });
    benchmarks.add("glu/n:" + std::to_string(ffn) + suffix,
                   [=](BenchEnv& env) { return glu_case(env, ffn, cols, false); });
    benchmarks.add("kv_write/" + s.attention_name() + suffix,
                   [=](BenchEnv& env) { return kv_write_case(env, cols); });
    benchmarks.add("add/n:" + std::to_string(hidden) + suffix,
                   [=](BenchEnv& env) { return add_case(env, hidden, cols); });
    const uint32_t q_dim = s.attention.n_heads * s.attention.head_dim;
    benchmarks.add("sigmoid_mul/n:" + std::to_string(q_dim) + suffix,
                   [=](BenchEnv& env) { return sigmoid_mul_case(env, cols); });
    // The forms that also write the int8 input of the integer-dot DMMV that follows.
    if (quantizing_producers_compiled()) {
      benchmarks.add("rmsnorm_quantize/n:" + std::to_string(hidden) + suffix,
                     [=](BenchEnv& env) { return rmsnorm_case(env, hidden, cols, true); });
      benchmarks.add("glu_quantize/n:" + std::to_string(ffn) + suffix,
                     [=](BenchEnv& env) { return glu_case(env, ffn, cols, true); });
    }
  }
  // A prefill chunk's shared-expert epilogues (Qwen3.5: its 2 x 512 gate and up split 8 ways,
  // its 2048-row down 4 ways), at this shape set's FFN and hidden widths.
  const uint32_t chunk = 32;
  benchmarks.add("matmul_split_reduce_glu/n:" + std::to_string(s.ffn) + "/splits:8/cols:" + std::to_string(chunk),
                 [=, n = s.ffn](BenchEnv& env) { return split_reduce_case(env, n, chunk, 8, true); });
  benchmarks.add("matmul_split_reduce_gated/n:" + std::to_string(s.hidden) + "/splits:4/cols:" + std::to_string(chunk),
                 [=, n = s.hidden](BenchEnv& env) { return split_reduce_case(env, n, chunk, 4, false); });
  benchmarks.add("dispatch_floor/fill_zero:64", [](BenchEnv& env) { return dispatch_floor_case(env, false); });
  benchmarks.add("dispatch_floor/fill_zero+add:64", [](BenchEnv& env) { return dispatch_floor_case(env, true); });
  // Greedy sampling reads one column of logits per generated token.
  const uint32_t vocab = s.vocab;
  benchmarks.add("argmax/vocab:" + std::to_string(vocab) + "/cols:1",
                 [=](BenchEnv& env) { return argmax_case(env, vocab, 1, false); });
  benchmarks.add("argmax_slices/vocab:" + std::to_string(vocab) + "/cols:1",
                 [=](BenchEnv& env) { return argmax_case(env, vocab, 1, true); });
}

}  // namespace pb::bench
