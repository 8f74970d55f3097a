#include "kernels/registry.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/embedded_spirv.h"

namespace pb {
namespace {

struct Registry {
  std::map<std::string, std::unique_ptr<Kernel>, std::less<>> kernels;
};

const Registry& registry() {
  static const Registry r = [] {
    Registry built;
    for (const auto& e : embedded_spirv()) {
      auto k = std::make_unique<Kernel>();
      k->name = e.name;
      k->spirv = e.words;
      k->reflection = reflect_spirv(e.words, e.name);
      built.kernels.emplace(e.name, std::move(k));
    }
    return built;
  }();
  return r;
}

}  // namespace

const Kernel* find_kernel(std::string_view name) {
  const auto& kernels = registry().kernels;
  const auto it = kernels.find(name);
  return it == kernels.end() ? nullptr : it->second.get();
}

const Kernel& kernel(std::string_view name) {
  if (const Kernel* k = find_kernel(name)) return *k;
  throw std::runtime_error("kernel '" + std::string(name) +
                           "' is not compiled into this build (does it need cooperative matrix "
                           "or integer dot product? see the configure output)");
}

std::vector<const Kernel*> all_kernels() {
  std::vector<const Kernel*> list;
  for (const auto& [name, k] : registry().kernels) list.push_back(k.get());
  return list;
}

}  // namespace pb
