#include "gpuplan/output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

void check_output(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(Exit::cant_create, fmt::format("cannot write '{}': it is a directory", path));
  if (!force && fs::exists(path, ec))
    fail(Exit::cant_create, fmt::format("'{}' exists; use --force to replace it", path));
}

void write_file_atomic(const std::string& path, const std::string& content, bool force) {
  namespace fs = std::filesystem;
  check_output(path, force);
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) fail(Exit::cant_create, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  // mkstemp creates 0600; give the file the mode a plain open() would (0666 less the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      fail(Exit::cant_create, fmt::format("cannot write '{}': {}", path, std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    fail(Exit::cant_create, fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace gpuplan
