#include "engine/ops/moe_down_acc_norm_op.h"

#include <string>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kBlock = kQuantizedXBlock;  // rows per arrival counter: one block of the norm

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("moe_down_acc_norm: " + what);
}

// Why the kernel cannot take `down` in shape `t`, or empty where it can: the kernel compiled in,
// one token's down (input per assignment), rows whole blocks of the norm, and workgroups of
// whole teams of 32 whose rows divide a block (its last workgroup per block quantizes it).
std::string problem_refusal(const MoeDmmvProblem& down, const DmmvIntdotTuning& t) {
  const char* name = moe_down_acc_norm_kernel_name(down.format);
  if (name == nullptr || find_kernel(name) == nullptr) {
    return std::string("no expert down kernel with the accumulation and the norm for ") +
           std::string(format_name(down.format)) +
           " weights here (Q4_K, Q6_K and Q8_0 have one where the integer-dot kernels are compiled in)";
  }
  if (down.input != MoeInput::Assignment || down.ncols != 1 || down.rows % kBlock != 0) {
    return "it takes one token's down projection (input per assignment), rows a multiple of 32 (" +
           std::to_string(down.rows) + ")";
  }
  const uint32_t lanes = t.lanes ? t.lanes : t.threads;
  if (t.threads % kBlock != 0 || t.threads % lanes != 0 || kBlock % (t.rows * (t.threads / lanes)) != 0) {
    return "the shape (" + std::to_string(t.threads) + " invocations in row teams of " + std::to_string(lanes) + ", " +
           std::to_string(t.rows) + " rows a team) must be whole teams of 32 with a workgroup's rows dividing 32";
  }
  return {};
}

}  // namespace

const char* moe_down_acc_norm_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q4_K: return "moe_dmmv_intdot_q4_k_acc_norm";
    case WeightFormat::Q8_0: return "moe_dmmv_intdot_q8_0_acc_norm";
    case WeightFormat::Q6_K: return "moe_dmmv_intdot_q6_k_acc_norm";
    default: return nullptr;
  }
}

// From the moe_dmmv_intdot_acc_norm_tuning sweep on an H200 at qwen3-30b-a3b's down (2048 x 768,
// K = 8; docs/GPU_FIGURES.md): 8 rows a workgroup, where the plain down takes 4 (Q4_K) or 2
// (Q8_0), so a block waits for 4 workgroups of each expert instead of 8 or 16. Q4_K 11.8 ->
// 11.2 us (32 x 8, unroll 2), Q8_0 15.7 -> 11.9 (64 x 8 x 2), Q6_K 19.0 -> 12.5 (32 x 8 x 1),
// against the plain down's 8.6, 9.1 and 12.3 us and moe_acc_norm's 3.25 after it. Then with row
// teams (moe_dmmv_intdot_tuning says why), 128 threads each: Q4_K 10.5 -> 9.2 us in teams of 16
// lanes of 2 rows (16 rows a workgroup: a block waits for 2 workgroups of each expert), Q8_0 12.8
// -> 10.0 in teams of 8 of 1 row, Q6_K 11.7 -> 10.0 in teams of 8 of 2 rows.
DmmvIntdotTuning moe_down_acc_norm_tuning(WeightFormat format, uint32_t cols) {
  DmmvIntdotTuning t = moe_dmmv_intdot_tuning(format, 1, cols, 1);
  const uint32_t chunk = t.chunk;
  if (format == WeightFormat::Q4_K) t = row_teams(128, 2, 2, 16);
  if (format == WeightFormat::Q8_0) t = row_teams(128, 1, 2, 8);
  if (format == WeightFormat::Q6_K) t = row_teams(128, 2, 2, 8);
  t.chunk = chunk;
  return t;
}

uint64_t moe_down_acc_norm_arrivals_bytes(uint32_t rows) { return (uint64_t(rows / kBlock) * 4 + 15) / 16 * 16; }

std::string moe_down_acc_norm_refusal(const DeviceInfo& info, const MoeDmmvProblem& down) {
  if (!moe_dmmv_intdot_supported(info, down.format)) return "the experts' integer-dot kernel does not run here";
  return problem_refusal(down, moe_down_acc_norm_tuning(down.format, down.cols));
}

Op moe_down_acc_norm_op(const MoeDmmvProblem& down, const QuantizedX& x, const MoeRouting& routing,
                        const MoeAccProblem& acc, const NormEpilogue& norm, const TensorView& arrivals,
                        const BindingLimits& limits, const DmmvIntdotTuning& requested) {
  // The kernel, problem and shape checks; the device's are the caller's (moe_down_acc_norm_refusal).
  const DmmvIntdotTuning d = moe_down_acc_norm_tuning(down.format, down.cols);
  DmmvIntdotTuning t{requested.threads ? requested.threads : d.threads, requested.rows ? requested.rows : d.rows,
                     requested.unroll ? requested.unroll : d.unroll, d.chunk};
  t.lanes = moe_intdot_lanes(requested, d, t.threads);
  const std::string refusal = problem_refusal(down, t);
  require(refusal.empty(), refusal);
  require(acc.ncols == 1 && acc.n == down.rows && acc.shape.top_k == down.shape.top_k &&
              acc.out.buffer == down.y.buffer && acc.out.offset == down.y.offset && acc.out_stride == down.y_stride,
          "the accumulation must read this projection's outputs (its out view and stride, n = rows = " +
              std::to_string(down.rows) + ", one token, the same K)");
  const std::vector<Op> plain = moe_dmmv_intdot_ops(down, x, routing, limits, t);
  require(plain.size() == 1, "the experts must lie in one binding (" + std::to_string(plain.size()) + " slices)");
  const uint64_t arrival_bytes = moe_down_acc_norm_arrivals_bytes(down.rows);
  require(arrivals.buffer != nullptr && arrivals.bytes >= arrival_bytes,
          "the arrival counters need " + std::to_string(arrival_bytes) + " zeroed bytes");
  // moe_acc_norm_op's checks, and its bindings: route_w, out, x, the norm's weight, quants,
  // scales and block squares.
  const Op acc_norm = moe_acc_norm_op(acc, routing, norm);
  Op op = plain.front();
  op.kernel = find_kernel(moe_down_acc_norm_kernel_name(down.format));
  op.bindings.at(3).access = Access::ReadWrite;  // the block's last workgroup reads the experts' rows back
  for (size_t b : {0, 2, 3, 4, 5, 6}) op.bindings.push_back(acc_norm.bindings.at(b));  // bindings 7 to 12
  op.bindings.push_back(arrivals.slice(0, arrival_bytes).read_write());                // 13
  specialize_norm_epilogue(op, norm);
  op.label = "moe_dmmv_intdot_acc_norm";
  return op;
}

}  // namespace pb
