#include "scenarios/sweep.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "harness/device.h"
#include "harness/errors.h"
#include "results/result_file.h"
#include "scenarios/fingerprint_check.h"
#include "scenarios/model_session.h"

namespace pb {
namespace {

// A run whose model could not even be loaded: recorded as failed with the reason.
nlohmann::json failed_run(const ScenarioRun& run, const std::string& error, double bandwidth) {
  RunRecord record;
  record.config = run.config;
  record.status = "failed";
  record.error = error;
  record.headline = default_headline(run.config);
  return to_json(record, bandwidth);
}

void check_same_scenario(const ResultFile& file, const nlohmann::json& block, const std::string& path) {
  const auto& old = file.document().at("scenario");
  if (old.value("source", nlohmann::json()) != block.at("source") ||
      old.value("shard", nlohmann::json()) != block.value("shard", nlohmann::json())) {
    throw UsageError(path + ": --resume found a result file of another scenario or shard; "
                     "write to a new --out file or drop --resume");
  }
}

}  // namespace

nlohmann::json scenario_block(const Scenario& s, const std::optional<Shard>& shard) {
  nlohmann::json axes = nlohmann::json::object();
  for (const auto& [key, values] : s.axes) axes[key] = values;
  nlohmann::json j = {{"name", s.name},
                      {"description", s.description},
                      {"file", s.file},
                      {"source", nlohmann::json::parse(s.source.dump())},
                      {"base", to_json(s.base)},
                      {"axes", axes},
                      {"repetitions",
                       {{"warmup", s.repetitions.warmup},
                        {"min", s.repetitions.min},
                        {"max", s.repetitions.max},
                        {"max_rel_ci", s.repetitions.max_rel_ci},
                        {"max_seconds", s.repetitions.max_seconds}}}};
  if (shard) j["shard"] = shard->name();
  return j;
}

SweepOutcome run_sweep(Device& device, PipelineSet& pipelines, Transfer& transfer, const Scenario& s,
                       const SweepOptions& o) {
  std::vector<ScenarioRun> runs;
  for (auto& r : s.expand()) {
    if (!o.shard || o.shard->contains(r.index)) runs.push_back(std::move(r));
  }
  const nlohmann::json block = scenario_block(s, o.shard);
  std::unique_ptr<ResultFile> file;
  std::set<size_t> done;
  if (o.resume && std::filesystem::exists(o.out)) {
    file = std::make_unique<ResultFile>(ResultFile::load(o.out));
    check_same_scenario(*file, block, o.out.string());
    // Failed runs are dropped and run again; the others are kept.
    auto& kept = file->document()["runs"];
    nlohmann::json remaining = nlohmann::json::array();
    for (auto& run : kept) {
      if (run["status"] != "failed" && run.contains("index")) {
        done.insert(run["index"].get<size_t>());
        remaining.push_back(run);
      }
    }
    kept = remaining;
  } else {
    file = std::make_unique<ResultFile>(to_json(device.info()), block);
  }

  // Runs that share a model run together, so each model is loaded once.
  std::map<std::string, size_t> first_seen;
  for (size_t i = 0; i < runs.size(); ++i) first_seen.emplace(runs[i].config.model_key(), i);
  std::stable_sort(runs.begin(), runs.end(), [&](const ScenarioRun& a, const ScenarioRun& b) {
    return first_seen[a.config.model_key()] < first_seen[b.config.model_key()];
  });

  SweepOutcome outcome;
  outcome.runs = runs.size();
  std::vector<RunConfig> all_configs;
  for (const auto& r : runs) all_configs.push_back(r.config);
  std::unique_ptr<ModelSession> session;
  std::string session_key, session_error;
  size_t number = 0;
  for (const ScenarioRun& run : runs) {
    ++number;
    if (done.count(run.index)) {
      ++outcome.skipped;
      continue;
    }
    const std::string key = run.config.model_key();
    if (key != session_key) {
      session.reset();
      session_key = key;
      session_error.clear();
      try {
        std::vector<RunConfig> same_model;
        for (const auto& c : all_configs) {
          if (c.model_key() == key) same_model.push_back(c);
        }
        const ModelConfig model = model_config_for(run.config);
        session = std::make_unique<ModelSession>(device, pipelines, transfer, run.config,
                                                 ModelSession::sizes_for(model, same_model));
      } catch (const std::exception& e) {
        session_error = e.what();
      }
    }
    stats::StoppingRule rule = s.repetitions;
    nlohmann::json entry;
    if (!session) {
      entry = failed_run(run, "the model did not load: " + session_error, o.copy_bandwidth_gbps);
    } else {
      const nlohmann::json config = to_json(run.config);
      RunRecord record = measure_run(device, pipelines, *session, run.config, rule, [&](const Progress& p) {
        if (o.progress) o.progress(number, runs.size(), config, p);
      });
      if (!s.headline.empty()) record.headline = s.headline;
      entry = to_json(record, o.copy_bandwidth_gbps);
      entry["pipelines"]["cache"] = o.pipeline_cache.empty() ? "off" : o.pipeline_cache;
    }
    entry["index"] = run.index;
    entry["axes"] = run.axes;
    file->add_run(std::move(entry));
    auto& all = file->document()["runs"];
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.value("index", 0) < b.value("index", 0); });
    check_fingerprints(all);
    file->save(o.out);
    if (o.log) {
      for (const auto& r : all) {
        if (r.value("index", size_t(-1)) != run.index) continue;
        std::string line = "[" + std::to_string(number) + "/" + std::to_string(runs.size()) + "] " +
                           r["status"].get<std::string>();
        for (const auto& [axis, value] : run.axes.items()) line += " " + axis + "=" + value.dump();
        const std::string headline = r["repetitions"]["headline"];
        if (r["summary"].contains(headline)) {
          char text[64];
          std::snprintf(text, sizeof text, "%.2f", r["summary"][headline]["median"].get<double>());
          line += " | " + headline + " " + text;
        }
        if (!r["error"].is_null()) line += " | " + r["error"].get<std::string>();
        o.log(line);
      }
    }
  }
  for (const auto& r : file->document()["runs"]) {
    const std::string status = r["status"];
    if (status == "ok") ++outcome.ok;
    else if (status == "incorrect") ++outcome.incorrect;
    else ++outcome.failed;
  }
  file->save(o.out);
  return outcome;
}

}  // namespace pb
