// Writes a file so that a crash never leaves a broken one behind: the bytes go to
// `<path>.tmp`, which is fsync'ed and renamed over `<path>` only by commit(). If commit() is
// never reached (an exception, a crash), the old file is untouched and the temporary removed
// (or, after a crash, left as `.tmp` for the next write to truncate).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace pb::gguf {

class AtomicFile {
 public:
  // Creates (truncates) `<path>.tmp`; throws std::system_error naming it on failure.
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();  // removes the temporary unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws std::system_error (e.g. ENOSPC) naming the temporary.
  void write(std::span<const uint8_t> bytes);
  // fsync, close, rename over the final path, fsync the directory so the rename is durable.
  void commit();

  const std::filesystem::path& temp_path() const { return tmp_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path tmp_;
  int fd_ = -1;
};

}  // namespace pb::gguf
