// The tiled matmul of `prefill: matmul` (kernels/matmul_*.comp) for every benchmarked format and
// projection shape at the prefill token counts: the scalar kernel everywhere, the
// cooperative-matrix kernel where the device and the build have it (choose_matmul).
#include "engine/ops/matmul_op.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/projection_case.h"

namespace pb::bench {
namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                                     WeightFormat::Q6_K};

BenchCase matmul_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, bool coopmat,
                      uint32_t tokens) {
  BenchCase c;
  const MatmulChoice choice = choose_matmul(env.info(), format, coopmat);
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
    }
  }
}

}  // namespace pb::bench
