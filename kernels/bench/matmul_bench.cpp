// The tiled matmul of `prefill: matmul` (kernels/matmul_*.comp) for every benchmarked format and
// projection shape at the prefill token counts: the scalar kernel everywhere, the
// cooperative-matrix kernel where the device and the build have it (choose_matmul):
//   matmul/<fmt>/{scalar,coopmat}/<shape>/tokens:N  each kernel as the engine tiles it: the
//       coopmat one with K split across workgroups where its tiles are few (matmul_split.h),
//       as at 32 tokens (prefill's default chunk), then with the reduction's dispatch
//   matmul/<fmt>/coopmat_unsplit/<shape>/tokens:N  the same without the split, for comparison
//   matmul_coopmat_tuning/<fmt>/<shape>/tokens:N/bm:M/bn:N/bk:K/wm:A/wn:B/stages:S  the
//       cooperative-matrix kernel under each candidate tiling that fits the device (split as the
//       engine splits, where its scratch holds the tiling's slots), to choose CoopmatTiling's
//       defaults
#include <optional>

#include "engine/ops/matmul_op.h"
#include "engine/ops/matmul_split.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/projection_case.h"

namespace pb::bench {
namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                                     WeightFormat::Q6_K};

// Candidate tilings of the cooperative-matrix kernel: (bm, bn, bk, wm, wn, stages).
constexpr CoopmatTiling kCoopmatTilings[] = {
    {128, 128, 32, 32, 32, 1}, {128, 128, 32, 64, 32, 2}, {128, 128, 32, 32, 64, 2}, {128, 128, 32, 64, 64, 2},
    {128, 128, 64, 64, 32, 1}, {128, 128, 64, 32, 64, 1}, {128, 128, 64, 64, 64, 1}, {128, 64, 64, 64, 32, 1},
    {64, 128, 64, 32, 64, 1},  {128, 128, 16, 64, 64, 2}, {64, 64, 64, 32, 32, 2},   {64, 64, 32, 32, 32, 2},
    // One 32-token block wide, for chunks of 32 tokens, where the wider tiles compute padding.
    {128, 32, 64, 32, 32, 1},  {128, 32, 64, 64, 32, 1},  {128, 32, 64, 32, 32, 2},   {128, 32, 64, 64, 32, 2},
    {64, 32, 64, 32, 32, 2},   {256, 32, 64, 64, 32, 1},  {128, 32, 32, 32, 32, 2}};

// Token counts where K splits (few tiles): the unsplit comparison's.
constexpr uint32_t kSplitTokens[] = {32, 128};

// The coopmat kernel's token counts: the prefill counts, and 32 (prefill's default chunk) before them.
std::vector<uint32_t> coopmat_token_counts(const BenchEnv& env) {
  std::vector<uint32_t> counts = env.shapes().matmul_tokens;
  counts.insert(counts.begin(), kSplitTokens[0]);
  return counts;
}

BenchCase matmul_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, bool coopmat,
                      uint32_t tokens, std::optional<CoopmatTiling> tiling = std::nullopt, bool split = false) {
  BenchCase c;
  MatmulChoice choice = choose_matmul(env.info(), format, coopmat, tokens);
  if (tiling) choice.coop = *tiling;
  const BindingLimits limits = BindingLimits::of(env.info());
  TensorView split_scratch;  // one for every round: the ledger orders them, as in the engine
  if (split) {
    const uint64_t bytes = matmul_split_scratch_bytes(env.info());
    split_scratch = TensorView::whole(keep(c, Buffer(env.device(), bytes, MemoryUse::Device, "matmul split sums")));
  }
  add_projection_rounds(c, env, format, shape, tokens, 2, "matmul",
                        [&](const ProjectionProblem& p) { return matmul_ops(p, limits, choice, split_scratch); });
  return c;
}

}  // namespace

void register_matmul_benchmarks(GpuBenchmarks& benchmarks) {
  BenchEnv& env = benchmarks.env();
  for (const WeightFormat format : kFormats) {
    std::vector<bool> variants = {false};
    if (choose_matmul(env.info(), format, true).coopmat) variants.push_back(true);
    for (const ProjectionShape& shape : env.shapes().projections) {
      for (const bool coopmat : variants) {
        for (const uint32_t tokens : coopmat ? coopmat_token_counts(env) : env.shapes().matmul_tokens) {
          const std::string name = "matmul/" + std::string(format_name(format)) + "/" +
                                   (coopmat ? "coopmat" : "scalar") + "/" + shape.name() +
                                   "/tokens:" + std::to_string(tokens);
          benchmarks.add(name, [=](BenchEnv& e) {
            return matmul_case(e, format, shape, coopmat, tokens, std::nullopt, coopmat);
          });
        }
      }
      if (variants.size() < 2) continue;  // no coopmat kernel: no unsplit comparison, no tuning
      for (const uint32_t tokens : kSplitTokens) {
        const std::string name = "matmul/" + std::string(format_name(format)) + "/coopmat_unsplit/" +
                                 shape.name() + "/tokens:" + std::to_string(tokens);
        benchmarks.add(name, [=](BenchEnv& e) { return matmul_case(e, format, shape, true, tokens); });
      }
      for (const CoopmatTiling& t : kCoopmatTilings) {
        if (!coopmat_tiling_fits(env.info(), t) || t.bk % coopmat_weight_group(format) != 0) continue;
        for (const uint32_t tokens : coopmat_token_counts(env)) {
          const std::string name = "matmul_coopmat_tuning/" + std::string(format_name(format)) + "/" + shape.name() +
                                   "/tokens:" + std::to_string(tokens) + "/bm:" + std::to_string(t.bm) +
                                   "/bn:" + std::to_string(t.bn) + "/bk:" + std::to_string(t.bk) +
                                   "/wm:" + std::to_string(t.wm) + "/wn:" + std::to_string(t.wn) +
                                   "/stages:" + std::to_string(t.stages);
          benchmarks.add(name, [=](BenchEnv& e) { return matmul_case(e, format, shape, true, tokens, t, true); });
        }
      }
    }
  }
}

}  // namespace pb::bench
