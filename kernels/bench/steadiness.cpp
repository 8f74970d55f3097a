#include "kernels/bench/steadiness.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "harness/errors.h"
#include "results/result_file.h"

namespace pb::bench {
namespace {

constexpr size_t kNamedOverLimit = 20;

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", share * 100);
  return text;
}

std::string gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB/s", value);
  return text;
}

std::string spread_line(const RepetitionSpread& s) {
  return percent(s.spread()) + " over " + std::to_string(s.repetitions) + " repetitions, " + s.name;
}

}  // namespace

const RepetitionSpread* Steadiness::widest() const {
  const auto it = std::max_element(spreads.begin(), spreads.end(),
                                   [](const auto& a, const auto& b) { return a.spread() < b.spread(); });
  return it == spreads.end() ? nullptr : &*it;
}

std::vector<RepetitionSpread> Steadiness::over_limit() const {
  std::vector<RepetitionSpread> over;
  for (const RepetitionSpread& s : spreads) {
    if (s.spread() > limit) over.push_back(s);
  }
  std::sort(over.begin(), over.end(), [](const auto& a, const auto& b) { return a.spread() > b.spread(); });
  return over;
}

std::string steadiness_text(const Steadiness& s) {
  std::ostringstream out;
  const double change = s.bandwidth_change();
  out << "phasebench-kernels: copy bandwidth " << gbps(s.bandwidth_start_gbps) << " at the start, "
      << gbps(s.bandwidth_end_gbps) << " at the end (" << (change >= 0 ? "+" : "") << percent(change) << ")\n";
  if (const RepetitionSpread* w = s.widest()) {
    out << "phasebench-kernels: repetitions of " << s.spreads.size()
        << " benchmarks; the widest spread (slowest over fastest) " << spread_line(*w) << "\n";
  }
  if (s.unchecked > 0) {
    out << "phasebench-kernels: the spread of " << s.unchecked
        << " benchmark(s) is not checked: they were reported by aggregates only (without "
           "--benchmark_display_aggregates_only and --benchmark_report_aggregates_only each repetition is "
           "compared)\n";
  }
  const std::vector<RepetitionSpread> over = s.over_limit();
  if (std::abs(change) > s.limit) {
    out << "phasebench-kernels: warning: the copy bandwidth moved by more than " << percent(s.limit)
        << " during the run: another process may be using the device, or its clocks changed; figures of "
           "this run may not compare with another's\n";
  }
  if (!over.empty()) {
    out << "phasebench-kernels: warning: " << over.size() << " benchmark(s) spread by more than "
        << percent(s.limit) << " across their repetitions; their medians are not steady to that "
        << "precision (rerun them alone, look for another process on the device, or raise "
           "--max-spread):\n";
    for (size_t i = 0; i < over.size() && i < kNamedOverLimit; ++i) out << "  " << spread_line(over[i]) << "\n";
    if (over.size() > kNamedOverLimit) out << "  ... and " << over.size() - kNamedOverLimit << " more\n";
  }
  if (s.cpu_device && (!over.empty() || std::abs(change) > s.limit)) {
    out << "phasebench-kernels: (the CPU device shares the host's cores with everything else on it: such "
           "spreads are common there, and its figures are for the tests, not a record)\n";
  }
  return out.str();
}

void add_steadiness_to_json(const std::filesystem::path& file, const Steadiness& s) {
  std::ifstream in(file);
  if (!in) throw UsageError(file.string() + ": cannot read the benchmark output back to add the run's steadiness");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Inserted as text at the top of the context object, not parsed and written again: Google
  // Benchmark writes NaN for the spread of a counter that is always zero, which is not JSON to a
  // strict parser, and the rest of the file stays byte for byte as it wrote it.
  const std::string opening = "\"context\": {";
  const size_t at = text.find(opening);
  if (at == std::string::npos) {
    throw UsageError(file.string() +
                     ": expected Google Benchmark JSON with a \"context\" object (--benchmark_out_format=json, "
                     "the default); the run's steadiness was not added to it");
  }
  char end[32];
  std::snprintf(end, sizeof end, "%.1f", s.bandwidth_end_gbps);
  const RepetitionSpread* w = s.widest();
  // Strings, as Google Benchmark writes its custom context.
  const std::pair<const char*, std::string> entries[] = {
      {"copy_bandwidth_end_gbps", end},
      {"repetition_spread_widest", w ? spread_line(*w) : "no benchmark ran two or more repetitions"},
      {"repetition_spread_limit", percent(s.limit)},
      {"repetition_spread_over_limit", std::to_string(s.over_limit().size())},
      {"repetition_spread_unchecked", std::to_string(s.unchecked)},
  };
  std::string inserted;
  for (const auto& [key, value] : entries) {
    inserted += "\n    " + nlohmann::json(key).dump() + ": " + nlohmann::json(value).dump() + ",";
  }
  text.insert(at + opening.size(), inserted);
  write_file_atomically(file, text);
}

}  // namespace pb::bench
