// The token embedding (embed) of a vocab x hidden table in Q4_K (the engine's default mixture
// stores it so) and in F16, and embed_norm, the decode form that also writes the first norm's
// int8 input (where the build has it). It reads only the rows its token ids select, so copies
// of the table alone would not keep it honest (a decode token reads one row of each). Each
// invocation embeds a token window of its own, the ids spread over the vocabulary so that no
// row repeats while it lasts, from the table copies in turn (WeightCache's, shared with the LM
// head of the same shape): as many invocations as rotation_copies gives for the rows one reads.
// A decode token's rows still add up to less than a GPU's cache (64 invocations of one row),
// which nothing short of the op stream's own traffic between two embeddings would change.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "engine/ops/embed_norm_op.h"
#include "engine/ops/embed_op.h"
#include "harness/transfer.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {
namespace {

// The token table's formats: the engine's default mixture (q4_k_m) stores it in Q4_K; F16 is a
// float table's.
constexpr WeightFormat kEmbedFormats[] = {WeightFormat::Q4_K, WeightFormat::F16};

// `count` token ids, consecutive ones `stride` rows apart modulo the vocabulary (a stride prime
// to it reaches every row before one repeats), uploaded into a buffer of their own.
const Buffer& token_ids(BenchEnv& env, BenchCase& c, uint32_t vocab, uint32_t count) {
  constexpr uint64_t kStride = 7919;  // prime; co-prime to every preset's vocabulary
  std::vector<uint32_t> ids(count);
  for (uint32_t i = 0; i < count; ++i) ids[i] = static_cast<uint32_t>((i * kStride + 13) % vocab);
  const uint64_t bytes = 4ull * count;
  const Buffer& b = keep(c, Buffer(env.device(), bytes, MemoryUse::Device, "tokens"));
  Transfer(env.device(), bytes).upload_from(b, 0, std::span<const uint32_t>(ids));
  return b;
}

// The token embedding of `cols` tokens from a vocab x hidden table in `format`; with `norm`
// (one column) embed_norm, which also writes the first RMSNorm's deferred int8 input. Invocation
// i embeds the tokens at positions i * cols .. (i + 1) * cols - 1 from table copy i (cycling),
// so no two invocations read the same rows while the vocabulary lasts.
BenchCase embed_case(BenchEnv& env, WeightFormat format, uint32_t cols, bool norm) {
  BenchCase c;
  const uint32_t vocab = env.shapes().vocab, hidden = env.shapes().hidden;
  const auto tables = env.weights().get(env.device(), env.pipelines(), format, vocab, hidden);
  c.resources.push_back(tables);
  const uint32_t table_copies = static_cast<uint32_t>(tables->copies.size());
  const uint64_t rows_bytes = tensor_bytes(format, cols, hidden);  // what one invocation reads
  c.invocations = std::max(table_copies, rotation_copies(env.info(), rows_bytes, env.input_cache()));
  const Buffer& tokens = token_ids(env, c, vocab, c.invocations * cols);
  const TensorView x = TensorView::whole(keep(c, Buffer(env.device(), 4ull * hidden * cols, MemoryUse::Device, "x")));
  const BindingLimits limits = BindingLimits::of(env.info());
  NormEpilogue epilogue;
  if (norm) {
    epilogue.weight = TensorView::whole(
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, hidden, 15, "norm weight")));
    const Buffer& out = keep(c, Buffer(env.device(), deferred_norm_bytes(hidden, limits), MemoryUse::Device, "xn"));
    epilogue.out = deferred_norm_in(TensorView::whole(out), hidden, 1e-6f, limits);
  }
  for (uint32_t i = 0; i < c.invocations; ++i) {
    const EmbedProblem p{format, TensorView::whole(tables->copies[i % table_copies]), TensorView::whole(tokens), x,
                         vocab,  hidden, i * cols, cols, hidden, 1.0f};
    c.round.push_back(norm ? embed_norm_op(p, epilogue, limits) : embed_op(p, limits));
  }
  c.cost = norm ? embed_norm_cost(format, hidden) : embed_cost(format, hidden, cols);
  return c;
}

}  // namespace

void register_embed_benchmarks(GpuBenchmarks& benchmarks) {
  const ShapeSet& s = benchmarks.env().shapes();
  // Format outermost: the embeddings of one table run back to back and share its copies
  // (WeightCache). embed_norm is a decode step's embedding that also writes the first norm's
  // int8 input (norm_placement: producer).
  for (const WeightFormat format : kEmbedFormats) {
    const std::string table =
        std::string(format_name(format)) + "/vocab:" + std::to_string(s.vocab) + "/n:" + std::to_string(s.hidden);
    for (const uint32_t cols : s.activation_cols) {
      benchmarks.add("embed/" + table + "/cols:" + std::to_string(cols),
                     [=](BenchEnv& env) { return embed_case(env, format, cols, false); });
    }
    if (has_embed_norm_kernel()) {
      benchmarks.add("embed_norm/" + table + "/cols:1",
                     [=](BenchEnv& env) { return embed_case(env, format, 1, true); });
    }
  }
}

}  // namespace pb::bench
