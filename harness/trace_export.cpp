#include "harness/trace_export.h"

#include <algorithm>
#include <string>

#include "harness/errors.h"

namespace pb {
namespace {

constexpr int kCpuPid = 1;
constexpr int kGpuPid = 2;
constexpr int kStageTid = 1;     // CPU: stages, with record/submit/wait nested inside
constexpr int kSubmitTid = 1;    // GPU: one slice per command buffer
constexpr int kPhaseTid = 2;     // GPU: phase (or dispatch) spans

nlohmann::json metadata(int pid, int tid, const char* what, const std::string& name) {
  nlohmann::json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

nlohmann::json slice(int pid, int tid, const std::string& name, const char* category, double ts,
                     double dur, nlohmann::json args) {
  return {{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"cat", category},
          {"ts", ts},  {"dur", std::max(0.0, dur)}, {"args", std::move(args)}};
}

}  // namespace

nlohmann::json chrome_trace(const nlohmann::json& run, const nlohmann::json& device) {
  const auto& timeline = run.value("timeline", nlohmann::json::object());
  if (timeline.empty()) {
    throw UsageError("run " + std::to_string(run.value("index", 0)) +
                     " has no timeline (it failed before its first measured repetition)");
  }
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata(kCpuPid, -1, "process_name", "CPU (host)"));
  events.push_back(metadata(kCpuPid, kStageTid, "thread_name", "record / submit / wait"));
  events.push_back(metadata(kGpuPid, -1, "process_name", "GPU: " + device.value("name", "device")));
  events.push_back(metadata(kGpuPid, kSubmitTid, "thread_name", "command buffers"));
  events.push_back(metadata(kGpuPid, kPhaseTid, "thread_name", "phases"));

  // Stages carry their own host start time; the earliest becomes time zero.
  double origin = 1e300;
  for (const auto& [stage, t] : timeline.items()) origin = std::min(origin, t.value("start_us", 0.0));
  bool calibrated = true;
  for (const auto& [stage, t] : timeline.items()) {
    const double base = t.value("start_us", 0.0) - origin;
    calibrated &= t.value("clock_calibrated", false);
    events.push_back(slice(kCpuPid, kStageTid, stage, "stage", base, t.value("wall_us", 0.0), {}));
    for (const auto& h : t["host"]) {
      events.push_back(slice(kCpuPid, kStageTid, h[0].get<std::string>(), "host", base + h[2].get<double>(),
                             h[3].get<double>() - h[2].get<double>(), {{"segment", h[1]}, {"stage", stage}}));
    }
    for (const auto& s : t["gpu_segments"]) {
      events.push_back(slice(kGpuPid, kSubmitTid, "command buffer " + std::to_string(s[0].get<int>()),
                             "gpu", base + s[1].get<double>(), s[2].get<double>() - s[1].get<double>(),
                             {{"segment", s[0]}, {"stage", stage}}));
    }
    for (const auto& s : t["gpu_spans"]) {
      events.push_back(slice(kGpuPid, kPhaseTid, s[0].get<std::string>(), "phase", base + s[4].get<double>(),
                             s[5].get<double>() - s[4].get<double>(),
                             {{"segment", s[1]}, {"layer", s[2]}, {"token", s[3]}, {"ops", s[6]}, {"stage", stage}}));
    }
  }
  // Never a negative timestamp (a GPU span placed a hair before its stage's host start).
  double earliest = 0;
  for (const auto& e : events) {
    if (e["ph"] == "X") earliest = std::min(earliest, e["ts"].get<double>());
  }
  for (auto& e : events) {
    if (e["ph"] == "X") e["ts"] = e["ts"].get<double>() - earliest;
  }
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    const bool am = a["ph"] == "M", bm = b["ph"] == "M";
    if (am != bm) return am;
    if (am) return false;
    if (a["ts"] != b["ts"]) return a["ts"].template get<double>() < b["ts"].template get<double>();
    return a["dur"].template get<double>() > b["dur"].template get<double>();  // parents first
  });
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"device", device.value("name", "")},
            {"config", run.value("config", nlohmann::json::object())},
            {"clock", calibrated ? "calibrated timestamps (VK_EXT_calibrated_timestamps)"
                                 : "GPU aligned to the first submit (no calibrated timestamps)"}}}};
}

}  // namespace pb
