#include "app/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace pb::app {
namespace {

std::string fmt(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

// "123.4 (95% CI 120.1-125.3)" or "123.4 (too few samples for a CI)".
std::string with_ci(const nlohmann::json& s, const char* format) {
  std::string text = fmt(format, s.at("median").get<double>());
  if (s.at("ci_low").is_null()) return text + " (median; too few repetitions for a 95% CI)";
  return text + " (median; 95% CI " + fmt(format, s["ci_low"].get<double>()) + "-" +
         fmt(format, s["ci_high"].get<double>()) + ")";
}

void stage(std::ostream& out, const nlohmann::json& run, const std::string& name) {
  const auto& summary = run.at("summary");
  if (!summary.contains(name + ".tok_s")) return;
  out << "  " << name << ": " << with_ci(summary[name + ".tok_s"], "%.1f") << " tok/s, wall "
      << fmt("%.2f", summary[name + ".wall_ms"]["median"].get<double>()) << " ms";
  if (summary.contains(name + ".gap_ms")) {
    const double wall = summary[name + ".wall_ms"]["median"].get<double>();
    const double gap = summary[name + ".gap_ms"]["median"].get<double>();
    out << ", GPU busy " << fmt("%.2f", summary[name + ".gpu_busy_ms"]["median"].get<double>())
        << " ms, CPU+submit/wait gap " << fmt("%.2f", gap) << " ms (" << fmt("%.0f", 100 * gap / wall)
        << "%)";
  }
  out << "\n";
  if (summary.contains(name + ".record_ms")) {
    // Under one submit the GPU starts only once the whole stage is recorded, so the recording
    // is all in the wall time; the shapes that submit pieces back to back overlap it.
    const bool recorded_first = run.at("config").at("submit").get<std::string>() == "per-prompt";
    out << "    host recording: " << fmt("%.2f", summary[name + ".record_ms"]["median"].get<double>()) << " ms"
        << (recorded_first ? ", all of it before the GPU started (one submit; --submit chunk:N has the GPU run "
                             "each piece while the next is recorded)"
                           : "")
        << "\n";
  }
  const auto& per_token = run.at("derived").at("counters_per_token").at(name);
  out << "    per token: " << fmt("%.1f", per_token["submits"].get<double>()) << " submits, "
      << fmt("%.1f", per_token["dispatches"].get<double>()) << " dispatches, "
      << fmt("%.1f", per_token["barrier_commands"].get<double>()) << " barriers, "
      << fmt("%.1f", per_token["descriptor_writes"].get<double>()) << " descriptor writes, "
      << fmt("%.1f", per_token["timestamps"].get<double>())
      << " timestamps (each waits for the work before it: --profile sets how many)\n";
  // The largest phases by median GPU time.
  std::vector<std::pair<double, std::string>> phases;
  const std::string prefix = name + ".phase.";
  for (const auto& [metric, s] : summary.items()) {
    if (metric.rfind(prefix, 0) == 0) {
      phases.emplace_back(s["median"].get<double>(), metric.substr(prefix.size(), metric.size() - prefix.size() - 3));
    }
  }
  std::sort(phases.rbegin(), phases.rend());
  if (!phases.empty()) {
    out << "    GPU phases (ms):";
    for (size_t i = 0; i < std::min<size_t>(phases.size(), 6); ++i) {
      out << " " << phases[i].second << " " << fmt("%.3f", phases[i].first);
    }
    out << "\n";
  }
}

}  // namespace

void print_run_summary(std::ostream& out, const nlohmann::json& run) {
  const auto& c = run.at("config");
  out << c["model"].get<std::string>() << " (" << c["weights"].get<std::string>() << "), prompt "
      << c["prompt_tokens"] << ", decode " << c["decode_tokens"] << " | submit "
      << c["submit"].get<std::string>() << ", prefill " << c["prefill"].get<std::string>()
      << ", num_cols " << c["num_cols"].get<std::string>() << ", barriers "
      << c["barriers"].get<std::string>() << ", descriptors " << c["descriptors"].get<std::string>()
      << ", profile " << c["profile"].get<std::string>() << "\n";
  out << "  status " << run.at("status").get<std::string>();
  if (!run.at("error").is_null()) out << ": " << run["error"].get<std::string>();
  const auto& reps = run.at("repetitions");
  out << "; " << reps["warmup"] << " warm-up + " << reps["measured"] << " measured repetitions ("
      << reps["stop_reason"].get<std::string>() << ")\n";
  if (run.at("samples").empty()) return;
  stage(out, run, "prefill");
  if (run["summary"].contains("ttft_ms")) {
    out << "  time to first token: " << with_ci(run["summary"]["ttft_ms"], "%.2f") << " ms\n";
  }
  stage(out, run, "decode");
  const auto& d = run.at("derived");
  if (d.contains("decode_weight_gbps")) {
    out << "  decode weight bandwidth: " << fmt("%.2f", d["decode_weight_gbps"].get<double>()) << " GB/s ("
        << fmt("%.1f", run["model"]["weight_bytes_per_token"].get<double>() / 1e6) << " MB per token)";
    if (!d["decode_roofline_share"].is_null()) {
      out << " = " << fmt("%.1f", 100 * d["decode_roofline_share"].get<double>()) << "% of the "
          << fmt("%.1f", d["copy_bandwidth_gbps"].get<double>()) << " GB/s copy roofline";
    }
    out << "\n";
  }
  if (!run.at("fingerprint").is_null()) {
    const auto& tokens = run["fingerprint"]["tokens"];
    out << "  generated tokens:";
    for (size_t i = 0; i < std::min<size_t>(tokens.size(), 12); ++i) out << " " << tokens[i];
    if (tokens.size() > 12) out << " ...";
    out << "\n";
  }
}

}  // namespace pb::app
