# Every dependency is a Debian package that scripts/setup installs; a missing one is named
# here with the package that provides it.
function(phasebench_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "phasebench: ${what} not found. Install the Debian package '${package}' "
                        "(scripts/setup installs every dependency).")
  endif()
endfunction()

find_package(VulkanHeaders CONFIG QUIET)
phasebench_require(VulkanHeaders_FOUND "Vulkan headers" libvulkan-dev)

find_path(VOLK_SOURCE_DIR volk.c PATHS /usr/include NO_DEFAULT_PATH)
find_path(VOLK_SOURCE_DIR volk.c)
phasebench_require(VOLK_SOURCE_DIR "volk (volk.h, volk.c)" libvulkan-volk-dev)

find_package(nlohmann_json 3.10 CONFIG QUIET)
phasebench_require(nlohmann_json_FOUND "nlohmann_json" nlohmann-json3-dev)

find_package(CLI11 CONFIG QUIET)
phasebench_require(CLI11_FOUND "CLI11" libcli11-dev)

find_package(SQLite3 QUIET)
phasebench_require(SQLite3_FOUND "SQLite3" libsqlite3-dev)

find_package(benchmark CONFIG QUIET)
phasebench_require(benchmark_FOUND "Google Benchmark" libbenchmark-dev)

find_package(Threads REQUIRED)

if(PHASEBENCH_TESTS)
  find_package(GTest CONFIG QUIET)
  phasebench_require(GTest_FOUND "GoogleTest" libgtest-dev)
endif()
