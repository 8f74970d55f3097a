// A result file (schema phasebench.result/1): one per sweep, holding the tool, device, host
// and scenario blocks and every run. It is rewritten atomically after each run, so a crash or
// a full disk never leaves a broken file and never loses a finished run.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace pb {

inline constexpr const char* kResultSchema = "phasebench.result/1";

class ResultFile {
 public:
  // A new file: tool and host blocks filled in; device and scenario given.
  ResultFile(nlohmann::json device, nlohmann::json scenario);
  // Reads `path`; throws UsageError naming the file for malformed JSON (with line and column),
  // a truncated file, or another schema version.
  static ResultFile load(const std::filesystem::path& path);

  nlohmann::json& document() { return doc_; }
  const nlohmann::json& document() const { return doc_; }
  const nlohmann::json& runs() const { return doc_.at("runs"); }
  void add_run(nlohmann::json run);

  // Writes to `path` atomically: a temporary file in the same folder, flushed, then renamed.
  void save(const std::filesystem::path& path) const;

 private:
  ResultFile() = default;
  nlohmann::json doc_;
};

// The tool block: name, version, git commit, build type, compiler, shader compiler.
nlohmann::json tool_info();

// Writes `text` to `path` atomically (temporary file, fsync, rename). Throws std::runtime_error
// naming the path on failure; the previous file, if any, is left as it was.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace pb
