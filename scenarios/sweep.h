// Runs a scenario's expansion (or one shard of it) and writes its result file as each run
// finishes, atomically. A failure inside one run marks that run `failed` and the sweep goes on;
// `resume` skips the runs a previous invocation already finished.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "scenarios/measure_run.h"
#include "scenarios/scenario.h"
#include "scenarios/shard.h"

namespace pb {

class Device;
class PipelineSet;
class Transfer;

struct SweepOptions {
  std::filesystem::path out;
  std::optional<Shard> shard;
  bool resume = false;
  double copy_bandwidth_gbps = 0;  // the device's roofline (0 = not measured)
  std::string pipeline_cache;      // "warm", "cold" or "off", recorded per run
  // Called for progress within a run: (run number, runs, config, progress).
  std::function<void(size_t, size_t, const nlohmann::json&, const Progress&)> progress;
  std::function<void(const std::string&)> log;  // one line per finished run
};

struct SweepOutcome {
  size_t runs = 0;     // runs of this invocation's share
  size_t skipped = 0;  // already in the file (resume)
  size_t ok = 0, incorrect = 0, failed = 0;
};

SweepOutcome run_sweep(Device& device, PipelineSet& pipelines, Transfer& transfer,
                       const Scenario& scenario, const SweepOptions& options);

// The scenario block a result file records: the file as written plus where it came from.
nlohmann::json scenario_block(const Scenario& scenario, const std::optional<Shard>& shard);

}  // namespace pb
