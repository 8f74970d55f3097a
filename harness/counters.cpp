#include "harness/counters.h"

#include <nlohmann/json.hpp>

namespace pb {

Counters& Counters::operator+=(const Counters& o) {
  command_buffers += o.command_buffers;
  submits += o.submits;
  host_waits += o.host_waits;
  dispatches += o.dispatches;
  pipeline_binds += o.pipeline_binds;
  descriptor_writes += o.descriptor_writes;
  descriptor_set_binds += o.descriptor_set_binds;
  barrier_commands += o.barrier_commands;
  memory_barriers += o.memory_barriers;
  buffer_barriers += o.buffer_barriers;
  execution_barriers += o.execution_barriers;
  timestamps += o.timestamps;
  return *this;
}

nlohmann::json to_json(const Counters& c) {
  return {{"command_buffers", c.command_buffers},
          {"submits", c.submits},
          {"host_waits", c.host_waits},
          {"dispatches", c.dispatches},
          {"pipeline_binds", c.pipeline_binds},
          {"descriptor_writes", c.descriptor_writes},
          {"descriptor_set_binds", c.descriptor_set_binds},
          {"barrier_commands", c.barrier_commands},
          {"memory_barriers", c.memory_barriers},
          {"buffer_barriers", c.buffer_barriers},
          {"execution_barriers", c.execution_barriers},
          {"timestamps", c.timestamps}};
}

}  // namespace pb
