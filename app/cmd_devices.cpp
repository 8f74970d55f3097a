// `phasebench devices [--json] [--bandwidth] [--device D] [--validate]`
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "harness/bandwidth.h"
#include "harness/device.h"
#include "harness/device_select.h"
#include "kernels/registry.h"

namespace pb::app {
namespace {

struct DevicesOptions {
  bool json = false;
  bool bandwidth = false;
  bool validate = false;
  std::string device;
};

const char* yes_no(bool v) { return v ? "yes" : "no"; }

void print_device(const DeviceInfo& d, bool chosen) {
  const auto& c = d.caps;
  std::printf("%s[%u] %s\n", chosen ? "* " : "  ", d.index, d.name.c_str());
  std::printf("      type %s, vendor %s (0x%04x), device 0x%04x\n", d.type.c_str(), d.vendor.c_str(),
              d.vendor_id, d.device_id);
  std::printf("      driver %s %s (%s), Vulkan %s\n", d.driver_name.c_str(), d.driver_info.c_str(),
              d.driver_version.c_str(), d.api_version.c_str());
  std::printf("      subgroup %u (min %u, max %u, required-size control %s)\n", d.subgroup_size,
              d.min_subgroup_size, d.max_subgroup_size, yes_no(d.required_subgroup_size_compute));
  std::printf("      timestamps: %u valid bits, period %.3f ns, calibrated %s\n",
              d.timestamp_valid_bits, d.timestamp_period_ns, yes_no(c.calibrated_timestamps));
  std::printf("      device-local memory %.1f GiB, shared memory %u KiB, max storage range %.0f MiB\n",
              static_cast<double>(d.device_local_bytes()) / (1 << 30), d.max_compute_shared_memory / 1024,
              static_cast<double>(d.max_storage_buffer_range) / (1 << 20));
  std::printf("      timeline %s, sync2 %s, 8/16-bit storage %s/%s, f16 %s, int8 %s, subgroup size "
              "control %s\n",
              yes_no(c.timeline_semaphore), yes_no(c.synchronization2), yes_no(c.storage_buffer_8bit),
              yes_no(c.storage_buffer_16bit), yes_no(c.shader_float16), yes_no(c.shader_int8),
              yes_no(c.subgroup_size_control));
  std::printf("      push descriptors %s, cooperative matrix %s, integer dot %s, descriptor buffer %s\n",
              yes_no(c.push_descriptor), yes_no(c.cooperative_matrix), yes_no(c.integer_dot_product),
              yes_no(c.descriptor_buffer));
  for (const auto& s : d.coopmat_shapes) {
    std::printf("      coopmat %ux%ux%u %s*%s+%s->%s (%s)\n", s.m, s.n, s.k, s.a_type.c_str(),
                s.b_type.c_str(), s.c_type.c_str(), s.result_type.c_str(), s.scope.c_str());
  }
}

int run_devices(const DevicesOptions& o) {
  Instance instance(InstanceOptions{o.validate});
  auto devices = enumerate_devices(instance);
  const size_t chosen = select_device(devices, o.device);
  if (o.bandwidth) {
    Device device(instance, instance.physical_devices()[chosen], devices[chosen]);
    const auto m = measure_copy_bandwidth(device, find_kernel("copy_vec4"));
    devices[chosen].copy_bandwidth_gbps = m.roofline_gbps;
    if (!o.json) {
      print_device(devices[chosen], true);
      std::printf("\ncopy bandwidth of '%s' (buffer %.0f MiB, bytes read + written, %zu repetitions):\n",
                  devices[chosen].name.c_str(), static_cast<double>(m.buffer_bytes) / (1 << 20),
                  m.transfer_gbps.size());
      std::printf("  vkCmdCopyBuffer   median %8.2f GB/s\n", m.transfer_median_gbps);
      std::printf("  shader copy       median %8.2f GB/s\n", m.shader_median_gbps);
      std::printf("  roofline          %8.2f GB/s\n", m.roofline_gbps);
      return 0;
    }
  }
  if (o.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& d : devices) {
      auto j = to_json(d);
      j["default"] = (d.index == devices[chosen].index);
      list.push_back(j);
    }
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  std::printf("Vulkan devices (* = the one runs use by default or with --device):\n");
  for (const auto& d : devices) print_device(d, d.index == devices[chosen].index);
  return 0;
}

}  // namespace

void add_devices_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<DevicesOptions>();
  auto* cmd = app.add_subcommand("devices", "List Vulkan devices and their capabilities");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_flag("--bandwidth", o->bandwidth, "Measure the copy bandwidth of the chosen device");
  cmd->add_option("--device", o->device, "Device index or name substring");
  cmd->add_flag("--validate", o->validate, "Run under the Khronos validation layer");
  cmd->callback([o, &action] { action = [o] { return run_devices(*o); }; });
}

}  // namespace pb::app
