#include "engine/ops/moe_dmmv_intdot_op.h"

#include <algorithm>
#include <bit>
#include <string>

#include "harness/errors.h"
#include "harness/folded_grid.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("moe_dmmv_intdot: " + what);
}

// The chunk the expert kernels are compiled with: the format's first (dmmv_intdot_<fmt>.glsl;
// Q6_K has one kind of chunk, named 0).
uint32_t first_chunk(WeightFormat format) {
  return format == WeightFormat::Q4_K ? 64 : format == WeightFormat::Q8_0 ? 16 : 0;
}

}  // namespace

const char* moe_dmmv_intdot_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q4_K: return "moe_dmmv_intdot_q4_k";
    case WeightFormat::Q8_0: return "moe_dmmv_intdot_q8_0";
    case WeightFormat::Q6_K: return "moe_dmmv_intdot_q6_k";
    default: return nullptr;
  }
}

bool moe_dmmv_intdot_supported(const DeviceInfo& info, WeightFormat format) {
  const char* name = moe_dmmv_intdot_kernel_name(format);
  return name != nullptr && find_kernel(name) != nullptr && dmmv_intdot_supported(info, format);
}

DmmvIntdotTuning row_teams(uint32_t threads, uint32_t rows, uint32_t unroll, uint32_t lanes) {
  DmmvIntdotTuning t{threads, rows, unroll};
  t.lanes = lanes;
  return t;
}

// Decode, one column: the moe_dmmv_intdot_tuning sweep on an H200 at qwen3-30b-a3b's experts
// (gate 768 x 2048, down 2048 x 768; docs/GPU_FIGURES.md). The dense shapes fit Q4_K's gate
// (6.93 us at 32 threads x 2 rows x unroll 2). Q8_0's dense shape, 128 threads on one row, was
// slower than 64 x 2 x 1 (gate 8.69 -> 7.61 us). A chunk: the same sweep at 32 and 64 tokens
// (Q4_K, Q6_K and Q8_0; threads 8 to 128, rows 1 to 8) put 32 threads of 4 rows first or within
// 7% of the first for every format and role.
//
// Rows of fewer than 2048 inputs (down's: 768 in qwen3-30b-a3b, 512 in qwen35-35b-a3b) are few
// chunks (Q4_K 12 of 64 weights at 768), and one team of 32 left most of its invocations idle:
// they take row teams (DmmvIntdotTuning::lanes), from the same sweep with teams of 4 to 128
// lanes (down 2048 x 768, us): Q4_K in a chunk of 32 tokens 104.5 -> 52.2 (teams of 4, 2 rows
// each), at 64 196.3 -> 91.7, in decode 9.07 -> 6.9 (teams of 8); Q6_K 111.7 -> 73.1 and 8.8 ->
// 7.4 (teams of 8); Q8_0 79.9 -> 61.8 (teams of 16 of 4 rows) and 9.0 -> 7.3 (64 threads in teams
// of 16). Gate's rows of 2048 (32 to 128 chunks) kept one team: row teams were no faster there.
DmmvIntdotTuning moe_dmmv_intdot_tuning(WeightFormat format, uint32_t num_cols, uint32_t cols, uint32_t tokens) {
  DmmvIntdotTuning t = default_dmmv_intdot_tuning(format, num_cols, cols);
  if (num_cols == 1 && format == WeightFormat::Q8_0) t = {64, 2, 1};
  if (num_cols == 1 && tokens > 1) t = {32, 4, 1};
  if (num_cols == 1 && cols < 2048) {
    const bool chunk = tokens > 1;
    if (format == WeightFormat::Q4_K) t = row_teams(32, 2, 1, chunk ? 4 : 8);
    if (format == WeightFormat::Q6_K) t = row_teams(32, 2, 1, 8);
    if (format == WeightFormat::Q8_0) t = chunk ? row_teams(32, 4, 1, 16) : row_teams(64, 2, 1, 16);
  }
  t.chunk = first_chunk(format);
  t.matrix = {};
  return t;
}

uint32_t moe_intdot_lanes(const DmmvIntdotTuning& requested, const DmmvIntdotTuning& engine, uint32_t threads) {
  if (requested.lanes) return requested.lanes;
  return requested.threads || !engine.lanes ? threads : engine.lanes;
}

std::vector<Op> moe_dmmv_intdot_ops(const MoeDmmvProblem& p, const QuantizedX& x, const MoeRouting& routing,
                                    const BindingLimits& limits, const DmmvIntdotTuning& requested) {
  const char* name = moe_dmmv_intdot_kernel_name(p.format);
  require(name != nullptr, std::string("no expert integer-dot kernel for ") + std::string(format_name(p.format)) +
                               " weights (Q4_K, Q6_K and Q8_0 have one); use dmmv_activations float");
  const Kernel* k = find_kernel(name);
  require(k != nullptr, std::string("kernel ") + name +
                            " was not compiled in (integer-dot kernels need glslang >= 14 with "
                            "GL_EXT_integer_dot_product; see the configure output)");
  const uint64_t expert_bytes = check_moe_problem(p, "moe_dmmv_intdot");
  const uint32_t x_cols = p.input == MoeInput::Token ? p.ncols : p.ncols * p.shape.top_k;
  require(x.cols == p.cols && x.ncols >= x_cols && !x.rms,
          "the quantized x must hold " + std::to_string(x_cols) + " columns of " + std::to_string(p.cols) +
              " activations, its norm applied (no deferred RMS); it holds " + std::to_string(x.ncols) + " of " +
              std::to_string(x.cols));
  const uint32_t num_cols = requested.num_cols ? requested.num_cols : kMoeIntdotNumCols;
  require(num_cols == 1 || num_cols == 2 || num_cols == 4 || num_cols == 8,
          "assignments per pass (tuning.num_cols) must be 1, 2, 4 or 8; got " + std::to_string(num_cols));
  const DmmvIntdotTuning d = moe_dmmv_intdot_tuning(p.format, num_cols, p.cols, p.ncols);
  DmmvIntdotTuning t{requested.threads ? requested.threads : d.threads, requested.rows ? requested.rows : d.rows,
                     requested.unroll ? requested.unroll : d.unroll, requested.chunk ? requested.chunk : d.chunk};
  t.lanes = moe_intdot_lanes(requested, d, t.threads);
  require(t.threads >= 8 && t.threads % 8 == 0 && t.threads <= 1024 && t.rows >= 1 && t.rows <= 8 &&
              t.unroll >= 1 && t.unroll <= 4 && t.chunk == first_chunk(p.format),
          "tuning needs threads a multiple of 8 up to 1024, rows 1..8, unroll 1..4 and the format's first chunk (" +
              std::to_string(first_chunk(p.format)) + ")");
  require(std::has_single_bit(t.lanes) && t.lanes <= t.threads,
          "lanes (invocations per row team) must be a power of two up to the " + std::to_string(t.threads) +
              " threads; got " + std::to_string(t.lanes));
  const uint32_t rows_per_group = t.rows * (t.threads / t.lanes);
  const uint32_t row_blocks = ceil_div(p.rows, rows_per_group);
  require(row_blocks <= kMaxGroupsX, "more than 65535 row blocks");

  const AlignedWindow xq = aligned_window(x.quants, 0, uint64_t(x_cols) * p.cols, limits);
  const AlignedWindow xs = aligned_window(x.scales, 0, uint64_t(x_cols) * p.cols / 4, limits);  // 8 bytes per 32
  require(xq.first_float % 4 == 0 && xs.first_float % 2 == 0, "the quants must start on 16 bytes and the scales on 8");
  const AlignedWindow y = moe_output_window(p, limits, "moe_dmmv_intdot");
  Op op;
  op.kernel = k;
  op.spec.set(0, static_cast<int32_t>(num_cols))
      .set(1, static_cast<int32_t>(p.input))
      .set(2, static_cast<int32_t>(t.threads))
      .set(3, static_cast<int32_t>(t.rows))
      .set(5, static_cast<int32_t>(t.unroll))
      .set(9, static_cast<int32_t>(t.lanes));
  op.groups = {row_blocks, moe_item_capacity(p.shape, p.ncols), 1};
  op.label = "moe_dmmv_intdot";
  return moe_expert_slice_ops(p, routing, limits, expert_bytes, op, {xq.view.read(), xs.view.read()}, y.view.write(),
                              [&](uint32_t e0, uint32_t count) {
                                return PushConstants::of(MoeIntdotPush{p.rows, p.cols, p.shape.top_k, p.y_stride,
                                                                       y.first_float, xq.first_float / 4,
                                                                       xs.first_float / 2, e0, count});
                              });
}

const char* moe_dmmv_intdot_glu_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q4_K: return "moe_dmmv_intdot_q4_k_glu";
    case WeightFormat::Q8_0: return "moe_dmmv_intdot_q8_0_glu";
    case WeightFormat::Q6_K: return "moe_dmmv_intdot_q6_k_glu";
    default: return nullptr;
  }
}

Op moe_dmmv_intdot_glu_op(const MoeDmmvProblem& p, const TensorView& gate_up, const QuantizedX& x,
                          const TensorView& logits, const MoeRouting& routing, const BindingLimits& limits,
                          const GluEpilogue& glu) {
  constexpr uint32_t block = kQuantizedXBlock;
  const char* name = moe_dmmv_intdot_glu_kernel_name(p.format);
  require(name != nullptr && find_kernel(name) != nullptr,
          std::string("no expert gate/up kernel with the SwiGLU for ") + std::string(format_name(p.format)) +
              " weights here (Q4_K, Q6_K and Q8_0 have one where the integer-dot kernels are compiled in)");
  const uint64_t expert_bytes = check_moe_problem(p, "moe_dmmv_intdot_glu");
  const MoeShape& s = p.shape;
  require(p.input == MoeInput::Token && p.ncols == 1 && p.rows % block == 0,
          "the gate/up with the SwiGLU takes one token's gate and up (input per token), rows a multiple of 32 (" +
              std::to_string(p.rows) + ")");
  const uint64_t stack_bytes = 2 * expert_bytes * s.n_experts;
  require(gate_up.buffer != nullptr && gate_up.bytes >= stack_bytes && stack_bytes <= limits.max_range,
          "gate and up must be one view of both experts' stacks (" + std::to_string(stack_bytes) +
              " bytes) within one binding (" + std::to_string(limits.max_range) + ")");
  require(x.cols == p.cols && x.ncols >= 1 && (!x.rms || x.rms->eps > 0),
          "the quantized x must hold the token's " + std::to_string(p.cols) +
              " activations (a deferred norm's with a positive epsilon)");
  require(glu.out.cols == p.rows && glu.out.ncols >= s.top_k && !glu.out.rms,
          "the SwiGLU's int8 output must hold K = " + std::to_string(s.top_k) + " columns of " +
              std::to_string(p.rows));
  // What moe_topk_group would read and write for the token (its checks too): the logits, the
  // routes and the work list, bound here at 10, 11, 12 and 7 to 9.
  const Op topk = moe_topk_group_op(s, logits, routing);
  const AlignedWindow xq = aligned_window(x.quants, 0, p.cols, limits);
  const AlignedWindow xs = aligned_window(x.scales, 0, uint64_t(p.cols) / 4, limits);
  require(xq.first_float % 4 == 0 && xs.first_float % 2 == 0, "the quants must start on 16 bytes and the scales on 8");
  const uint64_t out_elements = uint64_t(s.top_k) * p.rows;
  const BufferRef out_quants = glu.out.quants.slice(0, out_elements).write();
  const BufferRef out_scales = glu.out.scales.slice(0, out_elements / block * 8).write();
  // A workgroup's teams hold 32 gate rows and the 32 up rows that pair with them.
  constexpr uint32_t team_rows = kGluEpilogueTeamRows;
  Op op;
  op.kernel = find_kernel(name);
  op.spec.set(0, 1)
      .set(2, static_cast<int32_t>(32 * (2 * block / team_rows)))
      .set(3, static_cast<int32_t>(team_rows))
      .set(5, 2)
      .set(6, x.rms ? std::bit_cast<int32_t>(x.rms->eps) : 0)
      .set(7, static_cast<int32_t>(glu.activation))
      .set(8, s.norm_topk ? 1 : 0);
  op.bindings = {gate_up.slice(0, stack_bytes).read(),
                 xq.view.read(),
                 xs.view.read(),
                 out_scales,  // binding 3 (the plain form's y) is not used here
                 // binding 4: a deferred norm's block squares; unread (RMS_EPS 0), the input's scales
                 x.rms ? x.rms->block_squares.slice(0, uint64_t(p.cols / block) * 4).read() : xs.view.read(),
                 out_quants,
                 out_scales,
                 topk.bindings[3],
                 topk.bindings[4],
                 topk.bindings[5],
                 topk.bindings[0],
                 topk.bindings[1],
                 topk.bindings[2]};
  op.push = PushConstants::of(MoeIntdotPush{p.rows, p.cols, s.top_k, 0, 0, xq.first_float / 4, xs.first_float / 2, 0,
                                            s.n_experts});
  op.groups = {p.rows / block, moe_item_capacity(s, 1), 1};
  op.phase = Phase::MoeGateUp;
  op.label = "moe_dmmv_intdot_glu";
  return op;
}

}  // namespace pb
