// `phasebench run --model P [axis flags] [--reference] --out FILE`: one configuration, one
// result file, and a short summary.
#include <iostream>
#include <memory>

#include "app/commands.h"
#include "app/device_options.h"
#include "app/device_steadiness.h"
#include "app/progress_line.h"
#include "app/run_options.h"
#include "app/run_summary.h"
#include "engine/model/host_weights.h"
#include "engine/reference_forward.h"
#include "harness/errors.h"
#include "results/result_file.h"
#include "scenarios/measure_run.h"
#include "scenarios/model_session.h"

namespace pb::app {
namespace {

struct RunCommand {
  DeviceOptions device;
  RunOptions run;
  bool reference = false;
  std::string out = "results/run.json";
};

// The CPU reference's tokens for the run; throws CheckFailure when the GPU's disagree.
void check_against_reference(const RunConfig& config, const ModelConfig& model, const Fingerprint& gpu) {
  if (!config.gguf.empty()) {
    throw UsageError("--reference recomputes the synthetic weights of a preset; it cannot check a --gguf "
                     "model (export-gguf's files load back to the same output, which the tests check)");
  }
  const auto plan = plan_tensors(model, config.weights);
  if (plan_bytes(plan) > (256ull << 20)) {
    throw UsageError("--reference runs the CPU reference forward, which is sized for the tiny-* "
                     "presets; '" + model.name + "' is too large for it");
  }
  const HostWeights host = HostWeights::synthetic(plan, config.seed);
  const bool int8 = config.forward.dmmv_activations == DmmvActivations::Int8;
  const ReferenceResult ref =
      reference_generate(model, host, synthetic_prompt(config.seed, config.prompt_tokens, model.vocab),
                         config.decode_tokens, ReferenceOptions{int8});
  Fingerprint expected;
  expected.tokens = ref.generated;
  expected.margins = ref.margins;
  for (float v : ref.final_logits) {
    expected.logits_sum += v;
    expected.logits_l2 += double(v) * v;
  }
  expected.logits_l2 = std::sqrt(expected.logits_l2);
  // int8 inputs: the reference quantizes as the GPU does, but from floats that differ in the last
  // bits, so near-ties flip more easily (kInt8FingerprintTolerance says how far).
  const FingerprintTolerance tolerance{int8 ? kInt8FingerprintTolerance.min_margin : 1e-2f, 5e-3};
  const std::string difference = compare_fingerprints(gpu, expected, tolerance);
  if (!difference.empty()) throw CheckFailure("the GPU output differs from the CPU reference: " + difference);
  std::cout << "  reference: matches the CPU reference forward (" << expected.tokens.size()
            << " tokens)\n";
}

int run_command(const RunCommand& o) {
  const RunConfig config = o.run.config();
  const auto rule = o.run.stopping_rule();
  const ModelConfig model = model_config_for(config);  // a bad preset fails before the device opens
  GpuSession gpu(o.device);
  ModelSession session(gpu.device(), *gpu.pipelines, *gpu.transfer, config,
                       ModelSession::sizes_for(model, {config}));
  ProgressLine progress(std::cerr);
  const RunRecord record = measure_run(gpu.device(), *gpu.pipelines, session, config, rule,
                                       [&](const Progress& p) { progress.update(1, 1, to_json(config), p); });
  progress.finish();
  nlohmann::json run = to_json(record, gpu.copy_bandwidth_gbps);
  run["pipelines"]["cache"] = gpu.cache_state;
  const nlohmann::json scenario = {{"name", "run"},
                                   {"description", "a single configuration from `phasebench run`"},
                                   {"base", to_json(config)},
                                   {"axes", nlohmann::json::object()},
                                   {"repetitions",
                                    {{"warmup", rule.warmup}, {"min", rule.min}, {"max", rule.max},
                                     {"max_rel_ci", rule.max_rel_ci}, {"max_seconds", rule.max_seconds}}}};
  ResultFile file(to_json(gpu.device().info()), scenario);
  file.add_run(run);
  file.save(o.out);  // before the probe below: nothing measured is lost if it fails
  print_run_summary(std::cout, run);
  state_device_steadiness(gpu, o.out, std::cout);
  std::cout << "  result: " << o.out << "\n";
  if (record.status != "ok") return 1;
  if (o.reference) check_against_reference(config, model, *record.fingerprint);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunCommand>();
  auto* cmd = app.add_subcommand("run", "Run one configuration and write its result file");
  o->run.add_to(*cmd);
  o->device.add_to(*cmd);
  cmd->add_flag("--reference", o->reference,
                "Compare the output with the CPU reference forward and fail on a mismatch");
  cmd->add_option("--out", o->out, "Result file to write")->capture_default_str();
  cmd->callback([o, &action] { action = [o] { return run_command(*o); }; });
}

}  // namespace pb::app
