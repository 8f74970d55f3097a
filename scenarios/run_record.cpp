#include "scenarios/run_record.h"

#include <algorithm>
#include <map>

#include "harness/stats/descriptive.h"
#include "results/metric_summary.h"

namespace pb {
namespace {

nlohmann::json stage_json(const StageSample& s) {
  nlohmann::json j = {{"tokens", s.tokens},       {"wall_ms", s.wall_ms},     {"record_ms", s.record_ms},
                      {"submit_ms", s.submit_ms}, {"wait_ms", s.wait_ms},     {"counters", to_json(s.counters)}};
  j["gpu_busy_ms"] = s.gpu_busy_ms ? nlohmann::json(*s.gpu_busy_ms) : nlohmann::json();
  if (s.phase_ms) {
    nlohmann::json phases = nlohmann::json::object();
    for (size_t i = 0; i < kPhaseCount; ++i) {
      if ((*s.phase_ms)[i] > 0) phases[std::string(phase_name(static_cast<Phase>(i)))] = (*s.phase_ms)[i];
    }
    j["phases_ms"] = phases;
  } else {
    j["phases_ms"] = nullptr;
  }
  return j;
}

nlohmann::json per_token(const Counters& c, uint32_t tokens) {
  nlohmann::json j = to_json(c);
  for (auto& [key, value] : j.items()) value = value.get<double>() / std::max<uint32_t>(tokens, 1);
  return j;
}

nlohmann::json timeline_json(const StageTimeline& t) {
  nlohmann::json host = nlohmann::json::array();
  static const char* kinds[] = {"record", "submit", "wait"};
  for (const auto& h : t.host.host_spans) {
    host.push_back({kinds[static_cast<int>(h.kind)], h.segment, h.begin_ns / 1e3, h.end_ns / 1e3});
  }
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& s : t.gpu.segments) segments.push_back({s.segment, s.begin_ns / 1e3, s.end_ns / 1e3});
  nlohmann::json spans = nlohmann::json::array();
  for (const auto& s : t.gpu.spans) {
    spans.push_back({std::string(phase_name(s.phase)), s.segment, s.layer, s.token, s.begin_ns / 1e3,
                     s.end_ns / 1e3, s.op_count});
  }
  return {{"units", "us"},
          {"start_us", static_cast<double>(t.host.start_ns) / 1e3},
          {"wall_us", static_cast<double>(t.host.wall_ns) / 1e3},
          {"clock_calibrated", t.gpu.clock_calibrated},
          {"host", host},
          {"gpu_segments", segments},
          {"gpu_spans", spans}};
}

}  // namespace

std::string default_headline(const RunConfig& config) {
  return config.decode_tokens > 0 ? "decode.tok_s" : "prefill.tok_s";
}

nlohmann::json to_json(const RunRecord& r, double copy_bandwidth_gbps) {
  nlohmann::json j;
  j["config"] = to_json(r.config);
  j["status"] = r.status;
  j["error"] = r.error.empty() ? nlohmann::json() : nlohmann::json(r.error);
  j["unsafe"] = r.config.unsafe();
  j["model"] = {{"name", r.model.name},
                {"architecture", r.model.architecture},
                {"layers", r.model.layers},
                {"weight_bytes", r.model.weight_bytes},
                {"weight_bytes_per_token", r.model.weight_bytes_per_token}};
  j["repetitions"] = {{"warmup", r.warmup},
                      {"measured", r.samples.size()},
                      {"stop_reason", stats::to_string(r.stop_reason)},
                      {"headline", r.headline},
                      {"elapsed_s", r.elapsed_s}};
  j["pipelines"] = {{"created", r.pipelines_created}, {"create_ms", r.pipeline_create_ms}};

  nlohmann::json samples = nlohmann::json::array();
  std::map<std::string, std::vector<double>> by_metric;
  for (const auto& s : r.samples) {
    const auto metrics = metrics_of(s);
    for (const auto& [name, value] : metrics) by_metric[name].push_back(value);
    samples.push_back({{"metrics", metrics}, {"prefill", stage_json(s.prefill)}, {"decode", stage_json(s.decode)}});
  }
  j["samples"] = samples;
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& [name, values] : by_metric) {
    // A metric present in only some repetitions (a phase that sometimes rounds to zero) is
    // summarized over the repetitions that have it.
    summary[name] = metric_summary(values);
  }
  j["summary"] = summary;

  nlohmann::json derived = nlohmann::json::object();
  if (!r.samples.empty()) {
    const RepetitionSample& last = r.samples.back();
    derived["counters_per_token"] = {{"prefill", per_token(last.prefill.counters, last.prefill.tokens)},
                                     {"decode", per_token(last.decode.counters, last.decode.tokens)}};
    if (by_metric.count("decode.tok_s")) {
      const double tok_s = stats::median(by_metric["decode.tok_s"]);
      const double gbps = tok_s * static_cast<double>(r.model.weight_bytes_per_token) / 1e9;
      derived["decode_weight_gbps"] = gbps;
      derived["decode_roofline_share"] =
          copy_bandwidth_gbps > 0 ? nlohmann::json(gbps / copy_bandwidth_gbps) : nlohmann::json();
    }
  }
  derived["copy_bandwidth_gbps"] = copy_bandwidth_gbps > 0 ? nlohmann::json(copy_bandwidth_gbps) : nlohmann::json();
  j["derived"] = derived;
  j["fingerprint"] = r.fingerprint ? to_json(*r.fingerprint) : nlohmann::json();
  nlohmann::json timeline = nlohmann::json::object();
  if (r.prefill_timeline) timeline["prefill"] = timeline_json(*r.prefill_timeline);
  if (r.decode_timeline) timeline["decode"] = timeline_json(*r.decode_timeline);
  j["timeline"] = timeline;
  return j;
}

}  // namespace pb
