// One repetition's measurements of one stage (prefill or decode), and the flat metric map the
// result file, the charts and the gate all read.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "harness/counters.h"
#include "harness/phase.h"
#include "harness/profiler.h"
#include "harness/submitter.h"

namespace pb {

struct StageSample {
  uint32_t tokens = 0;         // tokens the stage processed
  double wall_ms = 0;          // first record to the end of the last wait
  double record_ms = 0;        // host time recording command buffers
  double submit_ms = 0;        // host time in vkQueueSubmit2
  double wait_ms = 0;          // host time waiting for the GPU
  std::optional<double> gpu_busy_ms;  // union of command-buffer spans; none with profile off
  std::optional<std::array<double, kPhaseCount>> phase_ms;  // GPU time per phase (phase/dispatch)
  Counters counters;

  static StageSample from(uint32_t tokens, const StageTiming& host, const StageGpuProfile& gpu);
};

struct RepetitionSample {
  StageSample prefill;
  StageSample decode;
};

// "prefill.tok_s", "prefill.wall_ms", "prefill.gap_ms", "prefill.phase.attn_qkv_ms", "ttft_ms",
// "decode.tok_s", ...: every metric of a repetition, by name. Times in ms, rates in tokens/s.
std::map<std::string, double> metrics_of(const RepetitionSample& sample);

// Whether a larger value of the metric is better (rates) or worse (times).
bool higher_is_better(const std::string& metric);

}  // namespace pb
