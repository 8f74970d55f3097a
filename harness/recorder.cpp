#include "harness/recorder.h"

#include "harness/device.h"
#include "harness/vk_check.h"

namespace pb {

Recorder::Recorder(Device& device, PipelineSet& pipelines, Profiler& profiler,
                   RecorderOptions options)
    : device_(device),
      pipelines_(pipelines),
      profiler_(profiler),
      options_(options),
      descriptors_(device, options.descriptors),
      barriers_(device, options.barriers) {}

void Recorder::prepare(std::span<const Op> ops) {
  ops_ = ops;
  op_pipelines_.clear();
  op_pipelines_.reserve(ops.size());
  for (const Op& op : ops) {
    validate_op(op, device_.info());
    const PipelineKey key{op.kernel, op.spec, options_.required_subgroup_size,
                          descriptors_.uses_push_descriptors()};
    const ComputePipeline& pipeline = pipelines_.get(key);
    descriptors_.prepare(pipeline, op);
    op_pipelines_.push_back(&pipeline);
  }
}

void Recorder::record(VkCommandBuffer cb, uint32_t segment_index, uint32_t first, uint32_t count,
                      uint32_t slot, Counters& counters) {
  const auto& vk = device_.vk();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  PB_VK_CHECK(vk.vkBeginCommandBuffer(cb, &begin));
  ++counters.command_buffers;
  profiler_.segment_begin(cb, segment_index, first, counters);

  VkPipeline bound = VK_NULL_HANDLE;
  for (uint32_t i = first; i < first + count; ++i) {
    const Op& op = ops_[i];
    const ComputePipeline& pipeline = *op_pipelines_[i];
    profiler_.before_dispatch(cb, segment_index, i, op, counters);
    barriers_.before_dispatch(cb, op, counters);
    if (pipeline.pipeline != bound) {
      vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
      bound = pipeline.pipeline;
      ++counters.pipeline_binds;
    }
    descriptors_.bind(cb, pipeline, op, slot, counters);
    if (op.push.size > 0) {
      vk.vkCmdPushConstants(cb, pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, op.push.size,
                            op.push.bytes.data());
    }
    vk.vkCmdDispatch(cb, op.groups[0], op.groups[1], op.groups[2]);
    ++counters.dispatches;
    profiler_.after_dispatch(cb, segment_index, i, counters);
    barriers_.after_dispatch(cb, op, counters);
  }
  profiler_.segment_end(cb, segment_index, first + count, counters);
  PB_VK_CHECK(vk.vkEndCommandBuffer(cb));
}

}  // namespace pb
