// A read-only memory mapping of a whole file, unmapped when the object dies. Model files are
// tens of gigabytes; mapping them lets tensor data be read in place, without heap copies.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace pb::gguf {

class MappedFile {
 public:
  // Throws GgufError (naming the path and the OS error) when the file cannot be opened,
  // is not a regular file, or cannot be mapped. An empty file maps to an empty span.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Stays valid (and at the same address) until the object is destroyed, also across moves.
  // The file must not be truncated while mapped: reading a page past the new end is SIGBUS.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  void reset() noexcept;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pb::gguf
