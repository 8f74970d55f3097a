#include "results/result_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "harness/build_info.h"
#include "harness/errors.h"
#include "results/host_info.h"
#include "results/metric_summary.h"

namespace pb {
namespace {

}  // namespace

nlohmann::json tool_info() {
  const BuildInfo& b = build_info();
  return {{"name", "phasebench"},       {"version", b.version},   {"git_commit", b.git_commit},
          {"build_type", b.build_type}, {"compiler", b.compiler}, {"glslang", b.glslang_version},
          {"coopmat_shaders", b.has_coopmat_shaders}, {"intdot_shaders", b.has_intdot_shaders}};
}

ResultFile::ResultFile(nlohmann::json device, nlohmann::json scenario) {
  doc_ = {{"schema", kResultSchema},
          {"created", utc_timestamp()},
          {"tool", tool_info()},
          {"device", std::move(device)},
          {"host", host_info()},
          {"scenario", std::move(scenario)},
          {"runs", nlohmann::json::array()}};
}

ResultFile ResultFile::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path.string() + ": cannot open the result file");
  std::stringstream text;
  text << in.rdbuf();
  ResultFile file;
  try {
    file.doc_ = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(path.string() + ": not valid JSON (" + e.what() +
                     "); a truncated file? Re-run the sweep, or --resume it from a good copy");
  }
  const auto& d = file.doc_;
  if (!d.is_object() || !d.contains("schema") || !d["schema"].is_string()) {
    throw UsageError(path.string() + ": /schema is missing; expected \"" + kResultSchema +
                     "\" (is this a phasebench result file?)");
  }
  if (d["schema"] != kResultSchema) {
    throw UsageError(path.string() + ": /schema is " + d["schema"].dump() + "; this phasebench reads \"" +
                     kResultSchema + "\" only. Re-run the sweep with this version");
  }
  for (const char* key : {"tool", "device", "host", "scenario", "runs"}) {
    if (!d.contains(key)) {
      throw UsageError(path.string() + ": /" + key + " is missing; the file is incomplete");
    }
  }
  if (!d["runs"].is_array()) throw UsageError(path.string() + ": /runs must be an array");
  return file;
}

void ResultFile::add_run(nlohmann::json run) { doc_["runs"].push_back(std::move(run)); }

void ResultFile::save(const std::filesystem::path& path) const { write_file_atomically(path, doc_.dump(1)); }

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::string temp = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + temp);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      ::close(fd);
      ::unlink(temp.c_str());
      throw std::runtime_error("cannot write " + temp + " (disk full?); " + path.string() +
                               " is unchanged");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot flush " + temp + "; " + path.string() + " is unchanged");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot rename " + temp + " to " + path.string());
  }
}

}  // namespace pb
