#include "kernels/bench/projection_case.h"

#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {

void add_projection_rounds(BenchCase& c, BenchEnv& env, WeightFormat format, const ProjectionShape& shape,
                           uint32_t ncols, uint32_t x_seed, const std::string& label, const ProjectionOps& ops_for) {
  auto weights = env.weights().get(env.device(), env.pipelines(), format, shape.rows, shape.cols);
  c.resources.push_back(weights);
  const Buffer& x = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                             uint64_t(ncols) * shape.cols, x_seed, label + " x"));
  const Buffer& y =
      keep(c, Buffer(env.device(), uint64_t(ncols) * shape.rows * 4, MemoryUse::Device, label + " y"));
  for (const Buffer& w : weights->copies) {
    const ProjectionProblem p{format,     TensorView::whole(w), TensorView::whole(x), TensorView::whole(y),
                              shape.rows, shape.cols,           ncols,                shape.cols,
                              shape.rows, false};
    const auto ops = ops_for(p);
    c.round.insert(c.round.end(), ops.begin(), ops.end());
  }
  c.invocations = static_cast<uint32_t>(weights->copies.size());
  c.cost = projection_cost(format, shape.rows, shape.cols, ncols);
}

}  // namespace pb::bench
