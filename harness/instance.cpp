#include "harness/instance.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

#include "harness/errors.h"
#include "harness/vk_check.h"

namespace pb {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* log = static_cast<ValidationLog*>(user);
  std::string message = data->pMessage ? data->pMessage : "(no message)";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
    log->add_error(std::move(message));
  } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    log->add_warning(std::move(message));
  }
  return VK_FALSE;
}

// The layer's spec version, or 0 when it is not installed.
uint32_t layer_version(const char* name) {
  uint32_t count = 0;
  PB_VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
  std::vector<VkLayerProperties> layers(count);
  PB_VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
  for (const auto& layer : layers) {
    if (std::strcmp(layer.layerName, name) == 0) return layer.specVersion;
  }
  return 0;
}

bool has_instance_extension(const char* name) {
  uint32_t count = 0;
  PB_VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  PB_VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data()));
  for (const auto& extension : extensions) {
    if (std::strcmp(extension.extensionName, name) == 0) return true;
  }
  return false;
}

}  // namespace

Instance::Instance(const InstanceOptions& options) : log_(std::make_unique<ValidationLog>()) {
  loader_ = dlopen(options.loader_library, RTLD_NOW | RTLD_LOCAL);
  auto get_proc = loader_ ? reinterpret_cast<PFN_vkGetInstanceProcAddr>(
                                dlsym(loader_, "vkGetInstanceProcAddr"))
                          : nullptr;
  if (!get_proc) {
    throw UsageError(std::string("no Vulkan loader found (") + options.loader_library +
                     "). Install it with `apt-get install libvulkan1`, and for the CPU device "
                     "lavapipe `apt-get install mesa-vulkan-drivers` (scripts/setup installs both)");
  }
  volkInitializeCustom(get_proc);
  const uint32_t loader_version = volkGetInstanceVersion();
  if (loader_version < VK_API_VERSION_1_3) {
    throw UsageError("the Vulkan loader supports API " +
                     std::to_string(VK_API_VERSION_MAJOR(loader_version)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(loader_version)) +
                     "; phasebench needs Vulkan 1.3. Update libvulkan1.");
  }

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (has_instance_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
  }
  if (options.validation) {
    validation_layer_version_ = layer_version(kValidationLayer);
    if (validation_layer_version_ == 0) {
      throw UsageError(
          "--validate needs the Khronos validation layer; install it with "
          "`apt-get install vulkan-validationlayers` (scripts/setup installs it)");
    }
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "phasebench";
  app.apiVersion = VK_API_VERSION_1_3;

  // Synchronization validation is what catches a missing barrier between dispatches.
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_validation_message;
  messenger_info.pUserData = log_.get();

  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (has_instance_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }
  if (options.validation) {
    features.pNext = &messenger_info;  // also catches messages from vkCreateInstance itself
    info.pNext = &features;
  }
  const VkResult created = vkCreateInstance(&info, nullptr, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw UsageError(
        "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER). For the CPU "
        "device lavapipe install `mesa-vulkan-drivers` (scripts/setup installs it); for a GPU, "
        "install its Vulkan driver");
  }
  PB_VK_CHECK(created);
  volkLoadInstanceOnly(instance_);

  if (options.validation) {
    const VkResult result =
        vkCreateDebugUtilsMessengerEXT(instance_, &messenger_info, nullptr, &messenger_);
    if (result != VK_SUCCESS) {
      vkDestroyInstance(instance_, nullptr);
      throw_vk_error(result, "vkCreateDebugUtilsMessengerEXT", __FILE__, __LINE__);
    }
  }
}

Instance::~Instance() {
  if (messenger_ != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
  uint32_t count = 0;
  PB_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  PB_VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, devices.data()));
  return devices;
}

}  // namespace pb
