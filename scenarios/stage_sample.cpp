#include "scenarios/stage_sample.h"

namespace pb {

StageSample StageSample::from(uint32_t tokens, const StageTiming& host, const StageGpuProfile& gpu) {
  StageSample s;
  s.tokens = tokens;
  s.wall_ms = static_cast<double>(host.wall_ns) / 1e6;
  s.record_ms = static_cast<double>(host.record_ns) / 1e6;
  s.submit_ms = static_cast<double>(host.submit_ns) / 1e6;
  s.wait_ms = static_cast<double>(host.wait_ns) / 1e6;
  s.counters = host.counters;
  if (gpu.available) {
    s.gpu_busy_ms = gpu.busy_ns / 1e6;
    if (!gpu.spans.empty()) {
      std::array<double, kPhaseCount> phases{};
      for (size_t i = 0; i < kPhaseCount; ++i) phases[i] = gpu.phase_ns[i] / 1e6;
      s.phase_ms = phases;
    }
  }
  return s;
}

namespace {

void add_stage(std::map<std::string, double>& m, const std::string& stage, const StageSample& s) {
  if (s.tokens == 0) return;
  m[stage + ".tok_s"] = s.tokens / (s.wall_ms / 1e3);
  m[stage + ".wall_ms"] = s.wall_ms;
  m[stage + ".record_ms"] = s.record_ms;
  m[stage + ".submit_ms"] = s.submit_ms;
  m[stage + ".wait_ms"] = s.wait_ms;
  if (s.gpu_busy_ms) {
    m[stage + ".gpu_busy_ms"] = *s.gpu_busy_ms;
    m[stage + ".gap_ms"] = s.wall_ms - *s.gpu_busy_ms;  // CPU + submit/wait gap
  }
  if (s.phase_ms) {
    for (size_t i = 0; i < kPhaseCount; ++i) {
      if ((*s.phase_ms)[i] > 0) {
        m[stage + ".phase." + std::string(phase_name(static_cast<Phase>(i))) + "_ms"] = (*s.phase_ms)[i];
      }
    }
  }
}

}  // namespace

std::map<std::string, double> metrics_of(const RepetitionSample& sample) {
  std::map<std::string, double> m;
  add_stage(m, "prefill", sample.prefill);
  add_stage(m, "decode", sample.decode);
  if (sample.prefill.tokens > 0) m["ttft_ms"] = sample.prefill.wall_ms;
  return m;
}

bool higher_is_better(const std::string& metric) {
  return metric.size() >= 6 && metric.compare(metric.size() - 6, 6, ".tok_s") == 0;
}

}  // namespace pb
