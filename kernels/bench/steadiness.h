// What phasebench-kernels states after a run about the run itself: how far apart each
// benchmark's repetitions were, and the device's copy bandwidth measured again at the end
// against its figure at the start. Either moving by more than the limit means the figures of
// this run may not compare with another's (another process on the GPU, clocks or temperature
// that changed, an order effect): the run says so instead of leaving it to a median.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "harness/bandwidth.h"
#include "kernels/bench/repetition_spread.h"

namespace pb::bench {

struct Steadiness {
  std::vector<RepetitionSpread> spreads;  // benchmarks with two or more repetitions
  size_t unchecked = 0;  // benchmarks reported by aggregates only: no repetition times to compare
  double bandwidth_start_gbps = 0;
  double bandwidth_end_gbps = 0;
  double limit = kSteadyBandwidthChange;  // a spread or a bandwidth change above it is flagged
  bool cpu_device = false;  // the warnings then say why they are common there

  const RepetitionSpread* widest() const;
  std::vector<RepetitionSpread> over_limit() const;  // widest first
  double bandwidth_change() const { return bandwidth_end_gbps / bandwidth_start_gbps - 1; }
};

// The lines printed to stderr after the run: the bandwidth at start and end, the widest spread,
// and every benchmark over the limit (the first 20 named) with what to do about it.
std::string steadiness_text(const Steadiness& s);

// Adds the figures to the "context" of a Google Benchmark JSON file (--benchmark_out), rewriting
// it atomically: copy_bandwidth_end_gbps, repetition_spread_widest, repetition_spread_limit,
// repetition_spread_over_limit and repetition_spread_unchecked. Throws UsageError naming the file when it is not such JSON.
void add_steadiness_to_json(const std::filesystem::path& file, const Steadiness& s);

}  // namespace pb::bench
