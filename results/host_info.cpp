#include "results/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>

extern char** environ;

namespace pb {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string os_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "unknown";
}

bool driver_variable(const std::string& name) {
  static const char* prefixes[] = {"RADV_", "MESA_", "AMD_", "ACO_", "LP_", "GALLIUM_", "VK_",
                                   "__GL_", "NV_", "CUDA_VISIBLE_DEVICES", "DISABLE_LAYER_",
                                   "ENABLE_"};
  for (const char* p : prefixes) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return false;
}

}  // namespace

nlohmann::json host_info() {
  utsname u{};
  uname(&u);
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (driver_variable(name)) env[name] = entry.substr(eq + 1);
  }
  return {{"os", os_name()},
          {"kernel", std::string(u.sysname) + " " + u.release},
          {"machine", u.machine},
          {"cpu", cpu_model()},
          {"cores", sysconf(_SC_NPROCESSORS_ONLN)},
          {"memory_bytes", static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE)},
          {"env", env}};
}

}  // namespace pb
