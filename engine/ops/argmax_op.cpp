#include "engine/ops/argmax_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

struct ArgmaxPartialPush {
  uint32_t vocab;          // logits per column
  uint32_t logits_stride;  // floats between logits columns
  uint32_t slice;          // logits per workgroup
};

struct ArgmaxCombinePush {
  uint32_t n_slices;   // top twos per column
  uint32_t out_index;  // index in the tokens binding of column 0's token
};

// What both forms bind: the logits read, the token ids and top twos written. The tokens are the
// aligned window holding [out_pos, out_pos + ncols), so the ledger sees only the ids produced.
struct ArgmaxBindings {
  BufferRef logits, tokens, top2;
  uint32_t out_index;  // of out_pos in the tokens window
};

ArgmaxBindings argmax_bindings(const ArgmaxProblem& p, const BindingLimits& limits) {
  const uint32_t end = p.out_pos + p.ncols;
  const TensorView tokens = column_span(p.tokens, 1, end, end, "argmax tokens");
  const AlignedWindow window = aligned_window(tokens, uint64_t(p.out_pos) * 4, uint64_t(end) * 4, limits);
  return {column_span(p.logits, p.ncols, p.logits_stride, p.vocab, "argmax logits").read(), window.view.write(),
          column_span(p.top2, 1, 4 * p.ncols, 4 * p.ncols, "argmax top2").write(), window.first_float};
}

uint32_t slices_of(uint32_t vocab) { return ceil_div(vocab, kArgmaxSlice); }

}  // namespace

Op argmax_op(const ArgmaxProblem& p, const BindingLimits& limits) {
  const ArgmaxBindings b = argmax_bindings(p, limits);
  Op op;
  op.kernel = &kernel("argmax");
  op.bindings = {b.logits, b.tokens, b.top2};
  op.push = PushConstants::of(ArgmaxPush{p.vocab, p.logits_stride, b.out_index});
  op.groups = {p.ncols, 1, 1};
  op.label = "argmax";
  return op;
}

uint64_t argmax_partials_bytes(uint32_t vocab, uint32_t ncols) { return uint64_t(slices_of(vocab)) * ncols * 16; }

std::vector<Op> argmax_two_pass_ops(const ArgmaxProblem& p, const BindingLimits& limits) {
  const uint32_t slices = slices_of(p.vocab);
  if (slices > kArgmaxMaxSlices) {
    throw UsageError("argmax: a vocabulary of " + std::to_string(p.vocab) + " needs " + std::to_string(slices) +
                     " slices; the combining pass takes at most " + std::to_string(kArgmaxMaxSlices));
  }
  const uint64_t partial_bytes = argmax_partials_bytes(p.vocab, p.ncols);
  if (p.partials.buffer == nullptr || p.partials.bytes < partial_bytes) {
    throw UsageError("argmax: the partials view needs " + std::to_string(partial_bytes) + " bytes (" +
                     std::to_string(slices) + " slices x " + std::to_string(p.ncols) + " columns x 16)");
  }
  const ArgmaxBindings b = argmax_bindings(p, limits);
  const TensorView partials = p.partials.slice(0, partial_bytes);
  Op partial;
  partial.kernel = &kernel("argmax_partial");
  partial.bindings = {b.logits, partials.write()};
  partial.push = PushConstants::of(ArgmaxPartialPush{p.vocab, p.logits_stride, kArgmaxSlice});
  partial.groups = {slices, p.ncols, 1};
  partial.label = "argmax_partial";
  Op combine;
  combine.kernel = &kernel("argmax_combine");
  combine.bindings = {partials.read(), b.tokens, b.top2};
  combine.push = PushConstants::of(ArgmaxCombinePush{slices, b.out_index});
  combine.groups = {p.ncols, 1, 1};
  combine.label = "argmax_combine";
  return {partial, combine};
}

std::vector<Op> argmax_ops(const ArgmaxProblem& p, const BindingLimits& limits) {
  if (p.partials.buffer != nullptr && p.vocab > kArgmaxTwoPassVocab) return argmax_two_pass_ops(p, limits);
  return {argmax_op(p, limits)};
}

}  // namespace pb
