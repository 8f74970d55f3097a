#include "engine/ops/dmmv_intdot_gated_op.h"

#include <vector>

#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {

const char* dmmv_intdot_gated_kernel_name(WeightFormat format) {
  switch (format) {
    case WeightFormat::Q4_K: return "dmmv_intdot_q4_k_gated";
    case WeightFormat::Q8_0: return "dmmv_intdot_q8_0_gated";
    case WeightFormat::Q6_K: return "dmmv_intdot_q6_k_gated";
    default: return nullptr;
  }
}

std::string dmmv_intdot_gated_refusal(const ProjectionProblem& p) {
  const char* name = dmmv_intdot_gated_kernel_name(p.format);
  if (name == nullptr) return std::string("no gated integer-dot kernel for ") + std::string(format_name(p.format));
  if (find_kernel(name) == nullptr) return std::string("kernel ") + name + " was not compiled in";
  if (p.ncols != 1 || !p.accumulate) return "the gated projection takes one column and adds into y";
  return {};
}

Op dmmv_intdot_gated_op(const ProjectionProblem& p, const QuantizedX& x, const TensorView& gate,
                        const BindingLimits& limits) {
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw UsageError("dmmv_intdot_gated: " + what);
  };
  const std::string refusal = dmmv_intdot_gated_refusal(p);
  require(refusal.empty(), refusal);
  require(!x.rms, "the gated projection's input cannot be a deferred norm (it has no RMS binding)");
  require(gate.buffer != nullptr && gate.bytes >= 4, "the gate must hold the column's float");
  // The engine's one-column shape, in the chunk the gated kernels are built for: the format's
  // first (Q4_K 64 weights, Q8_0 16), whose kernel their DMMV_OUTPUT_GATE form is.
  DmmvIntdotTuning t = default_dmmv_intdot_tuning(p.format, 1, p.cols);
  t.chunk = p.format == WeightFormat::Q4_K ? 64 : p.format == WeightFormat::Q8_0 ? 16 : 0;
  std::vector<Op> ops = dmmv_intdot_ops(p, x, limits, t);
  require(ops.size() == 1, "the gated projection must be one dispatch (its weights in one binding)");
  Op op = std::move(ops.front());
  require(op.kernel->name == dmmv_intdot_kernel_name(p.format),
          "the gated projection runs in the format's first chunk, not " + op.kernel->name);
  op.kernel = find_kernel(dmmv_intdot_gated_kernel_name(p.format));
  op.bindings.push_back(gate.slice(0, 4).read());  // binding 4
  op.label = "dmmv_intdot_gated";
  return op;
}

}  // namespace pb
