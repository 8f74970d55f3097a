#include "engine/ops/embed_norm_op.h"

#include <string>

#include "engine/ops/quantize_x_op.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw UsageError("embed_norm: " + what);
}

}  // namespace

bool has_embed_norm_kernel() { return find_kernel("embed_norm") != nullptr; }

Op embed_norm_op(const EmbedProblem& embed, const NormEpilogue& norm, const BindingLimits& limits) {
  constexpr uint32_t block = kQuantizedXBlock;
  const uint32_t n = embed.hidden;
  require(embed.ncols == 1, "the norm-writing embedding takes one column (a decode step)");
  require(n % block == 0, "the norm-writing embedding needs hidden a multiple of 32 (" + std::to_string(n) +
                              "): a workgroup writes whole blocks of the norm");
  require(norm.out.rms.has_value() && norm.out.cols == n && norm.out.ncols >= 1,
          "the norm's int8 output must hold one column of hidden and name its block squares (out.rms)");
  require(norm.weight.bytes >= uint64_t(n) * 4, "the norm's weights must hold hidden floats");
  require(has_embed_norm_kernel(), "kernel embed_norm was not compiled in (it needs the integer-dot build)");
  Op op = embed_op(embed, limits);  // the table, tokens and x checks and bindings
  op.kernel = find_kernel("embed_norm");
  op.bindings.push_back(norm.weight.slice(0, uint64_t(n) * 4).read());
  op.bindings.push_back(norm.out.quants.slice(0, n).write());
  op.bindings.push_back(norm.out.scales.slice(0, uint64_t(n / block) * 8).write());
  op.bindings.push_back(norm.out.rms->block_squares.slice(0, uint64_t(n / block) * 4).write());
  specialize_norm_epilogue(op, norm);
  op.label = "embed_norm";
  return op;
}

}  // namespace pb
