#include "engine/gguf/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace pb::gguf {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
  throw std::system_error(errno, std::generic_category(),
                          std::string(what) + " '" + path.string() + "'");
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path)
    : path_(std::move(path)), tmp_(path_.string() + ".tmp") {
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(tmp_, "cannot create");
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(tmp_, "cannot write");
    }
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail(tmp_, "cannot fsync");
  const int fd = fd_;
  fd_ = -1;  // from here on the destructor must not unlink what may already be renamed
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    errno = err;
    fail(tmp_, "cannot close");
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    errno = err;
    fail(path_, "cannot rename the temporary file to");
  }
  // Persist the directory entry; a failure here leaves a complete file, so it is not fatal
  // on filesystems that refuse to fsync a directory.
  std::filesystem::path dir = path_.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace pb::gguf
