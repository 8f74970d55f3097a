#include "engine/ops/argmax_op.h"

#include <string>

#include "engine/ops/column_span.h"
#include "harness/errors.h"
#include "kernels/registry.h"

namespace pb {
namespace {

struct ArgmaxSlicesPush {
  uint32_t vocab;          // logits per column
  uint32_t logits_stride;  // floats between logits columns
  uint32_t slice;          // logits per workgroup
  uint32_t out_index;      // index in the tokens binding of column 0's token
  uint32_t counter_word;   // word of column 0's arrival counter in the partials binding (its last)
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

// The top twos of every slice of every column, from the view's start (the arrival counters take
// its last words).
uint64_t top_twos_bytes(uint32_t vocab, uint32_t ncols) { return uint64_t(slices_of(vocab)) * ncols * 16; }

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

uint64_t argmax_partials_bytes(uint32_t vocab, uint32_t ncols) {
  return top_twos_bytes(vocab, ncols) + uint64_t(ceil_div(ncols, 4)) * 16;
}

Op argmax_sliced_op(const ArgmaxProblem& p, const BindingLimits& limits) {
  const uint32_t slices = slices_of(p.vocab);
  const uint64_t partial_bytes = argmax_partials_bytes(p.vocab, p.ncols);
  if (p.partials.buffer == nullptr || p.partials.bytes < partial_bytes) {
    throw UsageError("argmax: the partials view needs " + std::to_string(partial_bytes) + " bytes (" +
                     std::to_string(slices) + " slices x " + std::to_string(p.ncols) +
                     " columns x 16, then a counter per column); give it a zeroed buffer of argmax_partials_bytes()");
  }
  const ArgmaxBindings b = argmax_bindings(p, limits);
  Op op;
  op.kernel = &kernel("argmax_slices");
  // The counters sit at the view's end, column 0's in its last word, so that they stay where
  // they are whatever the column count of the dispatch: a sampler's dispatches of several
  // columns and of one share the view, and each leaves every counter at zero.
  op.bindings = {b.logits, p.partials.read_write(), b.tokens, b.top2};
  op.push = PushConstants::of(ArgmaxSlicesPush{p.vocab, p.logits_stride, kArgmaxSlice, b.out_index,
                                               static_cast<uint32_t>(p.partials.bytes / 4 - 1)});
  op.groups = {slices, p.ncols, 1};
  op.label = "argmax_slices";
  return op;
}

Op sampler_argmax_op(const ArgmaxProblem& p, const BindingLimits& limits) {
  if (p.partials.buffer != nullptr && p.vocab > kArgmaxSlicedVocab) return argmax_sliced_op(p, limits);
  return argmax_op(p, limits);
}

}  // namespace pb
