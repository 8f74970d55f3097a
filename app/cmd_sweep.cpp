// `phasebench sweep SCENARIO [--out FILE] [--shard K/N] [--resume] [--set axis=value]...
// [--repetitions N] [--warmup N]` and `phasebench merge R... --out R`.
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "app/device_options.h"
#include "app/device_steadiness.h"
#include "app/progress_line.h"
#include "harness/errors.h"
#include "results/result_file.h"
#include "scenarios/merge_results.h"
#include "scenarios/sweep.h"

namespace pb::app {
namespace {

struct SweepCommand {
  DeviceOptions device;
  std::string scenario;
  std::string out;
  std::string shard;
  bool resume = false;
  std::vector<std::string> overrides;
  int repetitions = 0;
  int warmup = -1;
};

int sweep_command(const SweepCommand& o) {
  Scenario scenario = load_scenario(o.scenario);  // bad input fails before the device opens
  apply_overrides(scenario, o.overrides);
  if (o.repetitions > 0) scenario.repetitions.min = scenario.repetitions.max = o.repetitions;
  if (o.warmup >= 0) scenario.repetitions.warmup = o.warmup;
  SweepOptions options;
  options.out = o.out.empty() ? "results/" + scenario.name + ".json" : o.out;
  if (!o.shard.empty()) options.shard = parse_shard(o.shard);
  options.resume = o.resume;
  GpuSession gpu(o.device);
  options.copy_bandwidth_gbps = gpu.copy_bandwidth_gbps;
  options.pipeline_cache = gpu.cache_state;
  ProgressLine progress(std::cerr);
  options.progress = [&](size_t run, size_t runs, const nlohmann::json& c, const Progress& p) {
    progress.update(run, runs, c, p);
  };
  options.log = [&](const std::string& line) {
    progress.finish();
    std::cout << line << std::endl;
  };
  std::cout << "sweep " << scenario.name << " on " << gpu.device().info().name << " -> "
            << options.out.string() << "\n";
  const SweepOutcome outcome = run_sweep(gpu.device(), *gpu.pipelines, *gpu.transfer, scenario, options);
  progress.finish();
  state_device_steadiness(gpu, options.out, std::cout);
  std::cout << outcome.runs << " runs (" << outcome.skipped << " already done): " << outcome.ok
            << " ok, " << outcome.incorrect << " incorrect, " << outcome.failed << " failed\n";
  return outcome.incorrect + outcome.failed > 0 ? 1 : 0;
}

struct MergeCommand {
  std::vector<std::string> inputs;
  std::string out;
};

int merge_command(const MergeCommand& o) {
  const ResultFile merged = merge_result_files(o.inputs);
  merged.save(o.out);
  std::cout << "merged " << merged.runs().size() << " runs from " << o.inputs.size() << " files into "
            << o.out << "\n";
  return 0;
}

}  // namespace

void add_sweep_commands(CLI::App& app, Action& action) {
  auto s = std::make_shared<SweepCommand>();
  auto* sweep = app.add_subcommand("sweep", "Run every configuration of a scenario file");
  sweep->add_option("scenario", s->scenario, "Scenario file (JSON)")->required();
  sweep->add_option("--out", s->out, "Result file (default results/<scenario name>.json)");
  sweep->add_option("--shard", s->shard, "Run only shard K of N (K/N)");
  sweep->add_flag("--resume", s->resume, "Skip runs already in the result file");
  sweep->add_option("--set", s->overrides, "Fix an axis for every run: axis=value (repeatable)");
  sweep->add_option("--repetitions", s->repetitions, "Exactly this many measured repetitions per run");
  sweep->add_option("--warmup", s->warmup, "Warm-up repetitions per run");
  s->device.add_to(*sweep);
  sweep->callback([s, &action] { action = [s] { return sweep_command(*s); }; });

  auto m = std::make_shared<MergeCommand>();
  auto* merge = app.add_subcommand("merge", "Join the result files of a sweep's shards");
  merge->add_option("inputs", m->inputs, "Shard result files")->required();
  merge->add_option("--out", m->out, "Merged result file")->required();
  merge->callback([m, &action] { action = [m] { return merge_command(*m); }; });
}

}  // namespace pb::app
