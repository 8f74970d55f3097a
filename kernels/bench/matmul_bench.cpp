// The tiled matmul of `prefill: matmul` (kernels/matmul_*.comp) for every benchmarked format and
// projection shape at the prefill token counts: the scalar kernel everywhere, the
// cooperative-matrix kernel where the device and the build have it (choose_matmul).
#include "engine/ops/matmul_op.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {
namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                                     WeightFormat::Q6_K};

BenchCase matmul_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, bool coopmat,
                      uint32_t tokens) {
  BenchCase c;
  const MatmulChoice choice = choose_matmul(env.info(), format, coopmat);
  auto weights = env.weights().get(env.device(), env.pipelines(), format, shape.rows, shape.cols);
  c.resources.push_back(weights);
  const Buffer& x = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                             uint64_t(tokens) * shape.cols, 2, "matmul x"));
  const Buffer& y =
      keep(c, Buffer(env.device(), uint64_t(tokens) * shape.rows * 4, MemoryUse::Device, "matmul y"));
  const BindingLimits limits = BindingLimits::of(env.info());
  for (const Buffer& w : weights->copies) {
    const ProjectionProblem p{format,
                              TensorView::whole(w),
                              TensorView::whole(x),
                              TensorView::whole(y),
                              shape.rows,
                              shape.cols,
                              tokens,
                              shape.cols,
                              shape.rows,
                              false};
    const auto ops = matmul_ops(p, limits, choice);
    c.round.insert(c.round.end(), ops.begin(), ops.end());
  }
  c.invocations = static_cast<uint32_t>(weights->copies.size());
  c.cost = projection_cost(format, shape.rows, shape.cols, tokens);
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
