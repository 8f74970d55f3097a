#include "kernels/bench/op_sequence.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pb::bench {

BenchCase interleave_cases(std::vector<BenchCase> parts) {
  BenchCase sequence;
  uint32_t steps = 0;
  for (const BenchCase& p : parts) {
    if (p.invocations == 0 || p.round.size() % p.invocations != 0) {
      throw std::logic_error("interleave_cases: a part has " + std::to_string(p.round.size()) + " ops for " +
                             std::to_string(p.invocations) + " invocations");
    }
    steps = std::max(steps, p.invocations);
  }
  const size_t n_parts = parts.size();
  for (uint32_t s = 0; s < steps; ++s) {
    for (size_t i = 0; i < n_parts; ++i) {
      const BenchCase& p = parts[i];
      const size_t ops = p.round.size() / p.invocations;
      const size_t invocation = (s + i * p.invocations / n_parts) % p.invocations;
      const auto first = p.round.begin() + static_cast<std::ptrdiff_t>(invocation * ops);
      sequence.round.insert(sequence.round.end(), first, first + static_cast<std::ptrdiff_t>(ops));
    }
  }
  for (BenchCase& p : parts) {
    sequence.resources.insert(sequence.resources.end(), p.resources.begin(), p.resources.end());
    sequence.cost.bytes += p.cost.bytes;
    sequence.cost.flops += p.cost.flops;
  }
  sequence.invocations = steps;
  return sequence;
}

}  // namespace pb::bench
