// Several benchmark cases run as one: invocation s of the sequence is one invocation of each
// part, in order, so every dispatch follows a different kernel, as in the engine's op stream,
// instead of another invocation of itself. Its time set against the sum of the parts' own
// benchmarks is what running them in a stream costs beyond running each alone (pipeline
// switches, caches the previous kernel left in another state).
#pragma once

#include <vector>

#include "kernels/bench/gpu_benchmark.h"

namespace pb::bench {

// The parts' ops interleaved invocation by invocation, over as many invocations as the part
// with the most rotation copies has; each part cycles through its own copies, starting part p
// at copy p * copies / parts, so that two parts reading the same tensors read different copies
// in the same invocation wherever there are at least as many copies as parts (on a GPU; the CPU
// device's 2 copies may coincide). Cost and resources are the parts' together. Throws
// std::logic_error for a part whose ops do not divide evenly into its invocations.
BenchCase interleave_cases(std::vector<BenchCase> parts);

}  // namespace pb::bench
