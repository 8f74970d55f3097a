// The read floor (kernels/read_floor.comp): a dispatch that reads as many bytes as a weight
// matrix and does nothing else, under a sweep of grids. It answers what a kernel of that size can
// reach at all on this device: a DMMV of a 33 MB matrix pays the dispatch and the ramp of the
// memory system as well as its bytes, so the copy bandwidth of a 1 GiB buffer is not its
// ceiling. The sizes are those of the Q4_K weights of each projection shape, of gate and up
// stacked, and of Q8_0's FFN matrix:
//   read_floor/<fmt>/<shape>/threads:T/loads:L
// T invocations per workgroup, each with L 16-byte loads in flight; inputs rotate through copies
// like the weights (cold), or one copy with --cache hot. Compare with
// dmmv_intdot/<fmt>/dmmv/<shape>/num_cols:1, which reads the same bytes.
#include "engine/ops/read_floor_op.h"
#include "engine/quant/weight_format.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/rotation.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {
namespace {

constexpr uint32_t kThreads[] = {32, 64, 128, 256, 512};
constexpr uint32_t kLoads[] = {1, 2, 4, 8, 16};

BenchCase read_floor_case(BenchEnv& env, uint64_t bytes, ReadFloorShape shape) {
  BenchCase c;
  const Buffer& folded =
      keep(c, Buffer(env.device(), 4ull * read_floor_groups(bytes, shape), MemoryUse::Device, "read_floor folded"));
  // Synthetic words, never all zeros, so no memory system can shortcut them.
  const uint32_t copies = rotation_copies(env.info(), bytes, env.input_cache());
  for (uint32_t i = 0; i < copies; ++i) {
    const Buffer& src =
        keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, bytes / 4, 40 + i, "read_floor src"));
    c.round.push_back(read_floor_op(TensorView::whole(src).slice(0, bytes), TensorView::whole(folded), shape));
  }
  c.invocations = copies;
  c.cost = {double(bytes), 0.0};
  return c;
}

struct Size {
  WeightFormat format;
  ProjectionShape shape;
};

// The byte counts: every projection in Q4_K, gate and up stacked, and the FFN matrix in Q8_0.
std::vector<Size> sizes(const ShapeSet& s) {
  std::vector<Size> out;
  for (const ProjectionShape& p : s.projections) {
    out.push_back({WeightFormat::Q4_K, p});
    if (p.role == "ffn_up") {
      out.push_back({WeightFormat::Q4_K, {"ffn_gate_up", 2 * p.rows, p.cols}});
      out.push_back({WeightFormat::Q8_0, p});
    }
  }
  return out;
}

}  // namespace

void register_read_floor_benchmarks(GpuBenchmarks& benchmarks) {
  const uint32_t max_threads = benchmarks.env().info().max_workgroup_invocations;
  for (const Size& size : sizes(benchmarks.env().shapes())) {
    const uint64_t bytes = tensor_bytes(size.format, size.shape.rows, size.shape.cols) / 16 * 16;
    for (const uint32_t threads : kThreads) {
      if (threads > max_threads) continue;
      for (const uint32_t loads : kLoads) {
        const std::string name = "read_floor/" + std::string(format_name(size.format)) + "/" + size.shape.name() +
                                 "/threads:" + std::to_string(threads) + "/loads:" + std::to_string(loads);
        benchmarks.add(name, [=](BenchEnv& env) { return read_floor_case(env, bytes, {threads, loads}); });
      }
    }
  }
}

}  // namespace pb::bench
