#include "scenarios/run_executor.h"

#include <cmath>
#include <cstring>

#include "harness/device.h"
#include "harness/pipeline.h"
#include "harness/transfer.h"

namespace pb {

RunExecutor::RunExecutor(Device& device, PipelineSet& pipelines, ModelSession& session,
                         const RunConfig& config)
    : device_(device),
      session_(session),
      config_(config),
      stream_(session.weights(), session.activations(), device.info(), config.forward),
      profiler_(device, config.profile),
      submitter_(device) {
  prefill_ops_ = stream_.prefill(config.prompt_tokens);
  decode_ops_ = stream_.decode(config.prompt_tokens, config.decode_tokens);
  prefill_segments_ = plan_segments(prefill_ops_, config.submit);
  decode_segments_ = plan_segments(decode_ops_, config.submit);
  const RecorderOptions options{config.barriers, config.descriptors, config.subgroup};
  const size_t created_before = pipelines.created();
  const double ms_before = pipelines.total_create_ms();
  prefill_recorder_ = std::make_unique<Recorder>(device, pipelines, profiler_, options);
  prefill_recorder_->prepare(prefill_ops_);
  decode_recorder_ = std::make_unique<Recorder>(device, pipelines, profiler_, options);
  decode_recorder_->prepare(decode_ops_);
  pipelines_created_ = pipelines.created() - created_before;
  pipeline_create_ms_ = pipelines.total_create_ms() - ms_before;
  session_.load_prompt(config.seed, config.prompt_tokens);
}

StageSample RunExecutor::run_stage(Recorder& recorder, const std::vector<Op>& ops,
                                   const std::vector<Segment>& segments, uint32_t tokens,
                                   StageTimeline* timeline) {
  if (ops.empty()) return StageSample{};
  StageTiming host = submitter_.run(recorder, segments, config_.double_buffer);
  StageGpuProfile gpu = profiler_.collect(ops, host.start_ns, host.submit_host_ns);
  device_.check_validation("a run");
  StageSample sample = StageSample::from(tokens, host, gpu);
  if (timeline) *timeline = StageTimeline{std::move(host), std::move(gpu)};
  return sample;
}

RepetitionSample RunExecutor::run_once(StageTimeline* prefill, StageTimeline* decode) {
  RepetitionSample r;
  r.prefill = run_stage(*prefill_recorder_, prefill_ops_, prefill_segments_, config_.prompt_tokens, prefill);
  r.decode = run_stage(*decode_recorder_, decode_ops_, decode_segments_, config_.decode_tokens, decode);
  return r;
}

Fingerprint RunExecutor::fingerprint() {
  const Activations& a = session_.activations();
  Transfer& t = session_.transfer();
  const uint32_t first = config_.prompt_tokens;
  const uint32_t count = config_.decode_tokens + 1;
  Fingerprint f;
  f.tokens = t.download_as<uint32_t>(a.tokens, first * 4ull, count);
  const auto top2 = t.download_as<uint32_t>(a.top2, first * 16ull, count * 4ull);
  for (uint32_t i = 0; i < count; ++i) {
    float best, second;
    std::memcpy(&best, &top2[i * 4 + 1], 4);
    std::memcpy(&second, &top2[i * 4 + 3], 4);
    f.margins.push_back(best - second);
  }
  const uint32_t vocab = session_.config().vocab;
  const uint32_t column = stream_.final_logits_column(config_.prompt_tokens, config_.decode_tokens);
  const auto logits = t.download_as<float>(*a.logits.buffer, uint64_t(column) * a.logits.stride * 4, vocab);
  for (float v : logits) {
    f.logits_sum += v;
    f.logits_l2 += double(v) * v;
  }
  f.logits_l2 = std::sqrt(f.logits_l2);
  return f;
}

}  // namespace pb
