// The integer-dot DMMV (kernels/intdot/) for Q8_0, Q4_K and Q6_K at every projection shape and
// column count, where the device and the build have it (dmmv_intdot_supported):
//   dmmv_intdot/<fmt>/quantize_dmmv/<shape>/num_cols:N  quantize_x then the DMMV, what a
//       projection costs when its input is quantized for it alone
//   dmmv_intdot/<fmt>/dmmv/<shape>/num_cols:N           the DMMV alone as the engine runs it
//       (dmmv_intdot_choice: from 8 columns on the matrix units where the device has them),
//       what each further projection sharing the quantized input (q/k/v, gate/up) costs
//   dmmv_intdot/<fmt>/dot/<shape>/num_cols:N            the integer-dot kernel at any width
//   dmmv_intdot/<fmt>/matrix/<shape>/num_cols:N         the cooperative-matrix kernel
//       (dmmv_coopmat_<fmt>) at any width, where supported
//   dmmv_coopmat_tuning/<fmt>/<shape>/num_cols:N/subgroups:S/rows:R/step:K  the cooperative-matrix
//       kernel under each candidate shape that fits the device
//   dmmv_intdot/<fmt>/int8mat/<shape>/num_cols:<8|16>   the int8 matrix kernel
//       (dmmv_int8mat_<fmt>) in its default shape, where supported
//   dmmv_int8mat_tuning/<fmt>/<shape>/num_cols:<8|16>/subgroups:S/rows:R/step:B  the int8 matrix
//       kernel under each candidate shape that fits the device; on wide rows (ffn_down) also
//       /splits:1, 2, 4 or 8, K split across that many workgroups (where the steps divide)
//   dmmv_intdot_tuning/<fmt>/<shape>/num_cols:N/threads:T/rows:R/unroll:U  the DMMV alone under
//       each candidate workgroup shape, to choose default_dmmv_intdot_tuning per device; for
//       Q4_K each also with /chunk:16, /chunk:32 and /chunk:64, the kernels of 16-weight chunks,
//       of sub-blocks and of 64-weight chunks (dmmv_intdot_q4_k16, _q4_k32, _q4_k), for Q8_0 with
//       /chunk:32, the kernel of whole blocks (dmmv_intdot_q8_032)
//   dmmv_intdot/<fmt>/dmmv/ffn_gate_up:<2R>xC/num_cols:1  gate and up stacked (R x C each, the
//       ffn_up shape), as decode projects them in one dispatch
// and the fused kernels of decode's placements (one column, the engine's shapes), each against
// dmmv_intdot/<fmt>/dmmv/ on the same weights for what its epilogue or prologue costs:
//   dmmv_intdot/<fmt>/norm/<attn|ffn_down>/num_cols:1  the residual projection that also writes
//       the next RMSNorm's int8 input and block squares (norm_placement: producer)
//   dmmv_intdot/<fmt>/rms/<shape>/num_cols:1           a projection of such a deferred norm,
//       dividing by its RMS
//   dmmv_intdot/<fmt>/glu/ffn_gate_up:<2R>xC/num_cols:1  the stacked gate and up projection of a
//       deferred norm that applies the GLU and writes act's int8 form (glu_placement: producer)
//   dmmv_intdot/<fmt>/gated/<attn|ffn_down>/num_cols:1  the projection that scales its output by
//       sigmoid(g) and adds it into y (Qwen3.5's shared expert's down in decode)
// Compare with dmmv/<fmt>/spec/<shape>/num_cols:N (dmmv_bench.cpp), which reads the same weights.
#include "engine/ops/dmmv_intdot_gated_op.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "engine/ops/fill_zero_op.h"
#include "harness/immediate.h"
#include "kernels/bench/benchmarks.h"
#include "kernels/bench/projection_case.h"
#include "kernels/bench/synthetic_fill.h"

namespace pb::bench {
namespace {

// "/SHAPE/num_cols:N", appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on a
// string literal plus a temporary string.
std::string shape_tail(const ProjectionShape& shape, uint32_t ncols) {
  std::string tail(1, '/');
  tail.append(shape.name()).append("/num_cols:").append(std::to_string(ncols));
  return tail;
}

constexpr WeightFormat kFormats[] = {WeightFormat::Q8_0, WeightFormat::Q4_K, WeightFormat::Q6_K};

// Candidate workgroup shapes: (threads, rows per workgroup, unroll).
constexpr DmmvIntdotTuning kTunings[] = {{32, 1, 1},  {32, 2, 2},  {64, 1, 1},  {64, 1, 2},  {64, 2, 1},
                                         {64, 2, 2},  {64, 4, 1},  {64, 4, 2},  {128, 1, 2}, {128, 2, 2},
                                         {128, 4, 1}, {256, 2, 2}, {64, 2, 4},  {32, 4, 2}, {64, 8, 1},
                                         {32, 1, 2}, {128, 1, 1}, {128, 1, 4}, {256, 1, 1}, {256, 1, 2}, {256, 1, 4},
                                         {64, 4, 4}, {128, 4, 2}, {64, 8, 2}, {128, 8, 1}, {32, 8, 1}, {64, 6, 1},
                                         {64, 3, 2}, {64, 1, 4}, {512, 1, 2}};

BenchCase intdot_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, uint32_t ncols,
                      bool with_quantize, DmmvIntdotTuning tuning = {}) {
  BenchCase c;
  const BindingLimits limits = BindingLimits::of(env.info());
  // Synthetic bytes as the quantized activations of the DMMV-alone variant: its time does not
  // depend on their values, and they are never zeros.
  const Buffer& qx_storage =
      keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                               quantized_x_bytes(shape.cols, ncols, limits) / 4, 3, "dmmv_intdot qx"));
  const QuantizedX qx = quantized_x_in(TensorView::whole(qx_storage), shape.cols, ncols, limits);
  add_projection_rounds(c, env, format, shape, ncols, 1, "dmmv_intdot", [&](const ProjectionProblem& p) {
    std::vector<Op> ops = with_quantize ? quantize_x_ops(p, qx, limits) : std::vector<Op>{};
    // The int8 matrix kernel's K split: its sums and arrival counters, zeroed once (each
    // dispatch leaves the counters so), a buffer per round as the weights have, so that they
    // are as far from the cache as in a forward pass, where every other layer's run between
    // two uses of the engine's one buffer.
    TensorView split_sums;
    if (const uint64_t split_bytes = dmmv_int8mat_split_bytes(p, tuning, limits)) {
      const Buffer& sums = keep(c, Buffer(env.device(), split_bytes, MemoryUse::Device, "int8mat split sums"));
      const Op zero = fill_zero_op(TensorView::whole(sums));
      run_immediately(env.device(), env.pipelines(), std::span(&zero, 1));
      split_sums = TensorView::whole(sums);
    }
    const auto dmmv = dmmv_intdot_ops(p, qx, limits, tuning, split_sums);
    ops.insert(ops.end(), dmmv.begin(), dmmv.end());
    return ops;
  });
  // Compulsory traffic of the DMMV alone: the weights, the quantized activations (1 byte per
  // element and 8 bytes per 32), y written. With quantize_x in front, the float activations
  // replace the quantized ones (their round trip through memory is the pair's own business).
  if (!with_quantize) c.cost.bytes += (1.25 - 4.0) * double(shape.cols) * ncols;
  return c;
}

// The kinds of fused kernel (the forms of decode's norm and GLU placements, and Qwen3.5's gated
// shared expert).
enum class Fused { Norm, Rms, Glu, Gated };

// One column of `shape` through the fused kernel `kind`, its input a deferred norm's for Rms and
// Glu. The outputs beyond y are the engine's: the norm's or act's int8 form (and the norm's block
// squares) in storage of their own, written over at every invocation.
BenchCase fused_case(BenchEnv& env, WeightFormat format, const ProjectionShape& shape, Fused kind) {
  BenchCase c;
  const BindingLimits limits = BindingLimits::of(env.info());
  const bool deferred = kind == Fused::Rms || kind == Fused::Glu;
  const uint64_t in_bytes = deferred ? deferred_norm_bytes(shape.cols, limits) : quantized_x_bytes(shape.cols, 1, limits);
  // Synthetic, never-zero bytes as the input: its quants, scales and (deferred) block squares.
  const Buffer& in = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32, in_bytes / 4, 3,
                                              "fused dmmv input"));
  const QuantizedX x = deferred ? deferred_norm_in(TensorView::whole(in), shape.cols, 1e-5f, limits)
                                : quantized_x_in(TensorView::whole(in), shape.cols, 1, limits);
  const uint32_t out_values = kind == Fused::Glu ? shape.rows / 2 : shape.rows;
  const Buffer& out = keep(c, Buffer(env.device(), deferred_norm_bytes(out_values, limits), MemoryUse::Device,
                                     "fused dmmv output"));
  const Buffer& norm_weight = keep(c, synthetic_values(env.device(), env.pipelines(), WeightFormat::F32,
                                                       out_values, 5, "fused dmmv norm weight"));
  const NormEpilogue norm{TensorView::whole(norm_weight),
                          deferred_norm_in(TensorView::whole(out), out_values, 1e-5f, limits)};
  add_projection_rounds(c, env, format, shape, 1, 1, "fused dmmv", [&](const ProjectionProblem& plain) {
    ProjectionProblem p = plain;
    switch (kind) {
      case Fused::Norm:
        p.accumulate = true;
        return std::vector<Op>{dmmv_intdot_norm_op(p, x, limits, norm)};
      case Fused::Rms:
        return dmmv_intdot_ops(p, x, limits);
      case Fused::Glu:
        return std::vector<Op>{dmmv_intdot_glu_op(
            p, x, limits, GluEpilogue{GluActivation::Silu, quantized_x_in(TensorView::whole(out), out_values, 1, limits)})};
      case Fused::Gated:  // the gate: the norm weight's first float stands in
        p.accumulate = true;
        return std::vector<Op>{dmmv_intdot_gated_op(p, x, TensorView::whole(norm_weight), limits)};
    }
    return std::vector<Op>{};
  });
  // Compulsory traffic: the weights and the int8 input (1.25 bytes an element), and then what
  // each form reads and writes besides y: the norm's y read too (a residual), its weight, its
  // int8 output and block squares; the input's block squares (Rms, Glu); for the GLU act's int8
  // form where y would be (no floats written).
  c.cost.bytes += (1.25 - 4.0) * double(shape.cols);
  if (deferred) c.cost.bytes += double(shape.cols) / 32 * 4;
  if (kind == Fused::Norm) c.cost.bytes += double(shape.rows) * (4 + 4 + 1.25 + 4.0 / 32);
  if (kind == Fused::Glu) c.cost.bytes += double(out_values) * 1.25 - double(shape.rows) * 4;
  if (kind == Fused::Gated) c.cost.bytes += double(shape.rows) * 4 + 4;  // y read too (added into), the gate
  return c;
}

// Candidate shapes of the cooperative-matrix kernel: (from_cols, subgroups, rows, step).
constexpr DmmvCoopmatTuning kCoopmatTunings[] = {{1, 2, 16, 64},  {1, 4, 16, 64},  {1, 8, 16, 64},  {1, 2, 16, 128},
                                                 {1, 4, 16, 128}, {1, 8, 16, 128}, {1, 2, 16, 256}, {1, 4, 16, 256},
                                                 {1, 2, 32, 64},  {1, 4, 32, 64},  {1, 2, 32, 128}, {1, 4, 32, 128}};

// Candidate shapes of the int8 matrix kernel: (from_cols, max_cols, subgroups, rows, step in blocks).
constexpr DmmvInt8MatTuning kInt8MatTunings[] = {
    {8, 0, 2, 16, 2}, {8, 0, 4, 16, 2}, {8, 0, 8, 16, 2}, {8, 0, 2, 16, 4}, {8, 0, 4, 16, 4}, {8, 0, 8, 16, 4},
    {8, 0, 2, 16, 8}, {8, 0, 4, 16, 8}, {8, 0, 2, 32, 2}, {8, 0, 4, 32, 2}, {8, 0, 8, 32, 2}, {8, 0, 2, 32, 4},
    {8, 0, 4, 32, 4}, {8, 0, 2, 32, 8}, {8, 0, 2, 64, 2}, {8, 0, 4, 64, 2}, {8, 0, 2, 64, 4}, {8, 0, 1, 64, 4},
    {8, 0, 1, 64, 8}, {8, 0, 1, 32, 8}};

}  // namespace

void register_dmmv_intdot_benchmarks(GpuBenchmarks& benchmarks) {
  BenchEnv& env = benchmarks.env();
  for (const WeightFormat format : kFormats) {
    if (!dmmv_intdot_supported(env.info(), format)) continue;
    const std::string fmt(format_name(format));
    for (const ProjectionShape& shape : env.shapes().projections) {
      const DmmvIntdotTuning engine = dmmv_intdot_choice(env.info(), format, true);
      for (const bool with_quantize : {true, false}) {
        for (const uint32_t ncols : kIntdotNumCols) {
          const std::string name = "dmmv_intdot/" + fmt + (with_quantize ? "/quantize_dmmv/" : "/dmmv/") +
                                   shape.name() + "/num_cols:" + std::to_string(ncols);
          benchmarks.add(name, [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, with_quantize, engine); });
        }
      }
      for (const uint32_t ncols : {8u, 16u}) {
        if (!dmmv_int8mat_supported(env.info(), format, {}, ncols)) break;
        const std::string tail = shape_tail(shape, ncols);
        DmmvIntdotTuning forced;
        forced.int8_matrix.from_cols = 8;
        benchmarks.add("dmmv_intdot/" + fmt + "/int8mat" + tail,
                       [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, forced); });
        // Wide rows also under each split of K that divides their steps.
        const bool wide = shape.cols > kIntdotWideCols;
        for (DmmvInt8MatTuning m : kInt8MatTunings) {
          for (const uint32_t splits : {1u, 2u, 4u, 8u}) {
            m.splits = splits;
            if ((!wide && splits > 1) || shape.cols % (splits * m.step * 32) != 0 ||
                !dmmv_int8mat_supported(env.info(), format, m, ncols)) {
              continue;
            }
            DmmvIntdotTuning t;
            t.int8_matrix = m;
            std::string name = "dmmv_int8mat_tuning/" + fmt + tail + "/subgroups:" + std::to_string(m.subgroups) +
                               "/rows:" + std::to_string(m.rows) + "/step:" + std::to_string(m.step);
            if (wide) name.append("/splits:").append(std::to_string(splits));  // appended: see shape_tail
            benchmarks.add(name, [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, t); });
          }
        }
      }
      const bool matrix = dmmv_coopmat_supported(env.info(), format);
      for (const uint32_t ncols : kIntdotNumCols) {
        const std::string tail = shape_tail(shape, ncols);
        benchmarks.add("dmmv_intdot/" + fmt + "/dot" + tail,
                       [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false); });
        if (!matrix) continue;
        DmmvIntdotTuning forced;
        forced.matrix.from_cols = 1;
        benchmarks.add("dmmv_intdot/" + fmt + "/matrix" + tail,
                       [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, forced); });
        for (const DmmvCoopmatTuning m : kCoopmatTunings) {
          if (!dmmv_coopmat_supported(env.info(), format, m)) continue;
          DmmvIntdotTuning t;
          t.matrix = m;
          benchmarks.add("dmmv_coopmat_tuning/" + fmt + tail + "/subgroups:" + std::to_string(m.subgroups) +
                             "/rows:" + std::to_string(m.rows) + "/step:" + std::to_string(m.step),
                         [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, t); });
        }
      }
      for (const uint32_t ncols : kIntdotNumCols) {
        for (const DmmvIntdotTuning t : kTunings) {
          const std::string name = "dmmv_intdot_tuning/" + fmt + "/" + shape.name() + "/num_cols:" +
                                   std::to_string(ncols) + "/threads:" + std::to_string(t.threads) +
                                   "/rows:" + std::to_string(t.rows) + "/unroll:" + std::to_string(t.unroll);
          benchmarks.add(name, [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, t); });
          // The format's chunks by name (the name without one takes the default for the width):
          // Q4_K's 16-weight chunks, sub-blocks and 64-weight chunks, Q8_0's whole blocks.
          const std::vector<uint32_t> other_chunks = format == WeightFormat::Q4_K   ? std::vector<uint32_t>{16, 32, 64}
                                                     : format == WeightFormat::Q8_0 ? std::vector<uint32_t>{32}
                                                                                    : std::vector<uint32_t>{};
          for (const uint32_t chunk : other_chunks) {
            DmmvIntdotTuning other = t;
            other.chunk = chunk;
            benchmarks.add(name + "/chunk:" + std::to_string(chunk),
                           [=](BenchEnv& e) { return intdot_case(e, format, shape, ncols, false, other); });
          }
        }
      }
      benchmarks.add("dmmv_intdot/" + fmt + "/rms/" + shape.name() + "/num_cols:1",
                     [=](BenchEnv& e) { return fused_case(e, format, shape, Fused::Rms); });
      if (shape.role == "attn" || shape.role == "ffn_down") {  // the residual projections
        benchmarks.add("dmmv_intdot/" + fmt + "/norm/" + shape.name() + "/num_cols:1",
                       [=](BenchEnv& e) { return fused_case(e, format, shape, Fused::Norm); });
        benchmarks.add("dmmv_intdot/" + fmt + "/gated/" + shape.name() + "/num_cols:1",
                       [=](BenchEnv& e) { return fused_case(e, format, shape, Fused::Gated); });
      }
      if (shape.role == "ffn_up") {
        const ProjectionShape stack{"ffn_gate_up", 2 * shape.rows, shape.cols};
        benchmarks.add("dmmv_intdot/" + fmt + "/dmmv/" + stack.name() + "/num_cols:1",
                       [=](BenchEnv& e) { return intdot_case(e, format, stack, 1, false); });
        benchmarks.add("dmmv_intdot/" + fmt + "/glu/" + stack.name() + "/num_cols:1",
                       [=](BenchEnv& e) { return fused_case(e, format, stack, Fused::Glu); });
      }
    }
  }
}

}  // namespace pb::bench
