// DMMV (kernels/dmmv_*.comp) for every benchmarked format, projection shape, `num_cols` mode
// and column count: `spec` at each of its pipelines (1, 2, 4, ..., 64 columns), `shared:32` and
// `shared:64` at each count one of their dispatches serves.
#include "engine/ops/dmmv_op.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/projection_case.h"

namespace pb::bench {
namespace {

constexpr WeightFormat kFormats[] = {WeightFormat::F16, WeightFormat::Q8_0, WeightFormat::Q4_K,
                                     WeightFormat::Q6_K};
constexpr NumColsMode kModes[] = {{false, 64}, {true, 32}, {true, 64}};

// Workgroup shapes the tuning benchmarks try: (threads, rows per workgroup).
constexpr std::pair<uint32_t, uint32_t> kTunings[] = {{32, 1},  {64, 1},  {64, 2},  {64, 4},  {128, 1},
                                                      {128, 2}, {128, 4}, {256, 1}, {256, 2}};
// Slots each thread takes per loop step (dmmv_body.glsl's UNROLL).
constexpr uint32_t kUnrolls[] = {1, 2, 4};

BenchCase dmmv_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, NumColsMode mode,
                    uint32_t ncols, DmmvTuning tuning = {}) {
  BenchCase c;
  const BindingLimits limits = BindingLimits::of(env.info());
  add_projection_rounds(c, env, format, shape, ncols, 1, "dmmv",
                        [&](const ProjectionProblem& p) { return dmmv_ops(p, mode, limits, tuning); });
  return c;
}

}  // namespace

void register_dmmv_benchmarks(GpuBenchmarks& benchmarks) {
  // Format, then shape outermost: the variants of one tensor run back to back and share its
  // weight copies (WeightCache).
  for (const WeightFormat format : kFormats) {
    for (const ProjectionShape& shape : benchmarks.env().shapes().projections) {
      for (const NumColsMode mode : kModes) {
        for (const uint32_t ncols : kSpecNumCols) {
          if (ncols > mode.max_cols) continue;
          const std::string name = "dmmv/" + std::string(format_name(format)) + "/" + mode.name() + "/" +
                                   shape.name() + "/num_cols:" + std::to_string(ncols);
          benchmarks.add(name, [=](BenchEnv& env) { return dmmv_case(env, format, shape, mode, ncols); });
        }
      }
    }
  }
  // The workgroup shape the DMMV defaults to is a choice per device: these time the spec kernel
  // at every column count under each candidate shape and column loop (dmmv_tuning/..., filter
  // them in or out). At one column the two loops are the same code, so only `unrolled` runs.
  for (const WeightFormat format : kFormats) {
    for (const ProjectionShape& shape : benchmarks.env().shapes().projections) {
      for (const uint32_t ncols : kSpecNumCols) {
        for (const auto& [threads, rows] : kTunings) {
          for (const uint32_t unroll : kUnrolls) {
            for (const ColumnLoop columns : {ColumnLoop::Unrolled, ColumnLoop::Rolled}) {
              if (ncols == 1 && columns == ColumnLoop::Rolled) continue;
              const std::string name = "dmmv_tuning/" + std::string(format_name(format)) + "/" + shape.name() +
                                       "/num_cols:" + std::to_string(ncols) + "/threads:" + std::to_string(threads) +
                                       "/rows:" + std::to_string(rows) + "/unroll:" + std::to_string(unroll) +
                                       "/columns:" + column_loop_name(columns);
              benchmarks.add(name, [=](BenchEnv& env) {
                return dmmv_case(env, format, shape, NumColsMode{false, 64}, ncols,
                                 DmmvTuning{threads, rows, unroll, columns});
              });
            }
          }
        }
      }
    }
  }
}

}  // namespace pb::bench
