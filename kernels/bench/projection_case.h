// What the projection benchmarks (DMMV, integer-dot DMMV, matmul) share: the weights' rotation
// copies, synthetic activations x of `ncols` columns, an output y, and one invocation of the
// kernel under test per copy.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/ops/projection.h"
#include "kernels/bench/gpu_benchmark.h"

namespace pb::bench {

// The ops one invocation runs for the projection over one weight copy.
using ProjectionOps = std::function<std::vector<Op>(const ProjectionProblem&)>;

// Adds to `c` the weights of `format` at `shape`, x (synthetic, seed `x_seed`) and y, named
// "<label> x" and "<label> y", and one round of `ops_for` per weight copy; sets the invocation
// count and the cost (projection_cost: weights, x and y once per invocation).
void add_projection_rounds(BenchCase& c, BenchEnv& env, WeightFormat format, const ProjectionShape& shape,
                           uint32_t ncols, uint32_t x_seed, const std::string& label, const ProjectionOps& ops_for);

}  // namespace pb::bench
