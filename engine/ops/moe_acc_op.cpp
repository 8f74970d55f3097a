#include "engine/ops/moe_acc_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "engine/ops/dmmv_intdot_op.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

constexpr uint32_t kWorkgroup = 256;  // the kernel's local_size_x

}  // namespace

Op moe_acc_op(const MoeAccProblem& p, const MoeRouting& routing) {
  const uint32_t assignments = p.ncols * p.shape.top_k;
  Op op;
  op.kernel = &kernel("moe_acc");
  op.bindings = {moe_route_w_read(p.shape, p.ncols, routing),
                 column_span(p.out, assignments, p.out_stride, p.n, "moe_acc out").read(),
                 column_span(p.x, p.ncols, p.x_stride, p.n, "moe_acc x").read_write()};
  op.push = PushConstants::of(MoeAccPush{p.n, p.shape.top_k, p.out_stride, p.x_stride});
  op.groups = {ceil_div(p.n, kWorkgroup), p.ncols, 1};
  op.phase = Phase::MoeAcc;
  op.label = "moe_acc";
  return op;
}

bool has_moe_acc_norm_kernel() { return find_kernel("moe_acc_norm") != nullptr; }

Op moe_acc_norm_op(const MoeAccProblem& p, const MoeRouting& routing, const NormEpilogue& norm) {
  constexpr uint32_t block = kQuantizedXBlock;
  const auto require = [](bool ok, const std::string& what) {
    if (!ok) throw UsageError("moe_acc_norm: " + what);
  };
  require(p.ncols == 1, "the norm-writing accumulation takes one token (a decode step)");
  require(p.n % block == 0, "the norm-writing accumulation needs n a multiple of 32 (" + std::to_string(p.n) +
                                "): a workgroup writes whole blocks of the norm");
  require(norm.out.rms.has_value() && norm.out.cols == p.n && norm.out.ncols >= 1,
          "the norm's int8 output must hold one column of n and name its block squares (out.rms)");
  require(norm.weight.bytes >= uint64_t(p.n) * 4, "the norm's weights must hold n floats");
  require(has_moe_acc_norm_kernel(), "kernel moe_acc_norm was not compiled in (it needs the integer-dot build)");
  Op op = moe_acc_op(p, routing);  // the routing, out and x checks and bindings
  op.kernel = find_kernel("moe_acc_norm");
  op.bindings.push_back(norm.weight.slice(0, uint64_t(p.n) * 4).read());
  op.bindings.push_back(norm.out.quants.slice(0, p.n).write());
  op.bindings.push_back(norm.out.scales.slice(0, uint64_t(p.n / block) * 8).write());
  op.bindings.push_back(norm.out.rms->block_squares.slice(0, uint64_t(p.n / block) * 4).write());
  specialize_norm_epilogue(op, norm);
  op.label = "moe_acc_norm";
  return op;
}

}  // namespace pb
