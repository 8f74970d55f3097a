// Op builder for greedy sampling (kernels/argmax.comp): the next token of each column and the
// top-two record the run's fingerprint keeps.
#pragma once

#include <cstdint>

#include "engine/ops/binding_limits.h"
#include "engine/ops/tensor_view.h"
#include "harness/op.h"

namespace pb {

struct ArgmaxPush {
  uint32_t vocab;          // logits per column
  uint32_t logits_stride;  // floats between logits columns
  uint32_t out_index;      // index in the tokens binding of column 0's output
};

// Per column c < ncols: tokens[out_pos + c] = the index of the largest logit (lowest index on
// ties; NaN never wins) and top2[c] = uvec4(index, bits of max, second index, bits of second
// max), the second being the best other element. A missing candidate (all NaN, vocab 1) is
// index 0xFFFFFFFF with NaN bits.
struct ArgmaxProblem {
  TensorView logits;  // column c at float c * logits_stride
  TensorView tokens;  // uint32 token ids by position
  TensorView top2;    // ncols uvec4s
  uint32_t vocab = 0;
  uint32_t ncols = 1;
  uint32_t logits_stride = 0;
  uint32_t out_pos = 0;  // position written for column 0
  TensorView partials;   // zeroed, at least argmax_partials_bytes(vocab, ncols), for the sliced form; may be empty
};

// One workgroup per column. Binds the aligned window of tokens holding [out_pos, out_pos +
// ncols) as written, so the ledger sees only the ids this op produces.
Op argmax_op(const ArgmaxProblem& problem, const BindingLimits& limits);

// The same result from slices of kArgmaxSlice logits in parallel (kernels/argmax_slices.comp):
// each writes its top two to `partials`, and the last of a column's slices to finish combines
// them. One workgroup reads a 150k vocabulary at one SM's pace (27 us on an H200); this reads
// it with all of them, in one dispatch where a second one used to combine. `partials` must
// start zeroed: its last words are the columns' arrival counters, which every dispatch leaves
// at zero, whatever its column count. Throws UsageError when `partials` is too small.
Op argmax_sliced_op(const ArgmaxProblem& problem, const BindingLimits& limits);

// The form a sampler should use: sliced where `partials` is given and the vocabulary is above
// kArgmaxSlicedVocab, else argmax_op.
Op sampler_argmax_op(const ArgmaxProblem& problem, const BindingLimits& limits);

inline constexpr uint32_t kArgmaxSlice = 2048;         // logits per argmax_slices workgroup
inline constexpr uint32_t kArgmaxSlicedVocab = 16384;  // one workgroup is as fast below it
uint64_t argmax_partials_bytes(uint32_t vocab, uint32_t ncols);

}  // namespace pb
