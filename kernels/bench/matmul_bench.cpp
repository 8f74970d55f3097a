// The tiled matmul of `prefill: matmul` (kernels/matmul_*.comp) for every benchmarked format and
// projection shape at the prefill token counts: the scalar kernel everywhere, the
// cooperative-matrix kernel where the device and the build have it (choose_matmul):
//   matmul/<fmt>/{scalar,coopmat}/<shape>/tokens:N  each kernel as the engine tiles it
//   matmul_coopmat_tuning/<fmt>/<shape>/tokens:N/bm:M/bn:N/bk:K/wm:A/wn:B/stages:S  the
//       cooperative-matrix kernel under each candidate tiling that fits the device, to choose
//       CoopmatTiling's defaults
#include <optional>

#include "engine/ops/matmul_op.h"
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
    {64, 128, 64, 32, 64, 1},  {128, 128, 16, 64, 64, 2}, {64, 64, 64, 32, 32, 2},   {64, 64, 32, 32, 32, 2}};

BenchCase matmul_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, bool coopmat,
                      uint32_t tokens, std::optional<CoopmatTiling> tiling = std::nullopt) {
  BenchCase c;
  MatmulChoice choice = choose_matmul(env.info(), format, coopmat);
  if (tiling) choice.coop = *tiling;
  const BindingLimits limits = BindingLimits::of(env.info());
  add_projection_rounds(c, env, format, shape, tokens, 2, "matmul",
                        [&](const ProjectionProblem& p) { return matmul_ops(p, limits, choice); });
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
        for (const uint32_t tokens : env.shapes().matmul_tokens) {
          const std::string name = "matmul/" + std::string(format_name(format)) + "/" +
                                   (coopmat ? "coopmat" : "scalar") + "/" + shape.name() +
                                   "/tokens:" + std::to_string(tokens);
          benchmarks.add(name, [=](BenchEnv& e) { return matmul_case(e, format, shape, coopmat, tokens); });
        }
      }
      if (variants.size() < 2) continue;
      for (const CoopmatTiling& t : kCoopmatTilings) {
        if (!coopmat_tiling_fits(env.info(), t) || t.bk % coopmat_weight_group(format) != 0) continue;
        for (const uint32_t tokens : env.shapes().matmul_tokens) {
          const std::string name = "matmul_coopmat_tuning/" + std::string(format_name(format)) + "/" + shape.name() +
                                   "/tokens:" + std::to_string(tokens) + "/bm:" + std::to_string(t.bm) +
                                   "/bn:" + std::to_string(t.bn) + "/bk:" + std::to_string(t.bk) +
                                   "/wm:" + std::to_string(t.wm) + "/wn:" + std::to_string(t.wn) +
                                   "/stages:" + std::to_string(t.stages);
          benchmarks.add(name, [=](BenchEnv& e) { return matmul_case(e, format, shape, true, tokens, t); });
        }
      }
    }
  }
}

}  // namespace pb::bench
