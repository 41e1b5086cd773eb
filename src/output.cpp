#include "gpuplan/output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

void write_stdout(const std::string& content) {
  const std::size_t n = std::fwrite(content.data(), 1, content.size(), stdout);
  if (n != content.size() || std::fflush(stdout) != 0 || std::ferror(stdout))
    fail(Exit::cant_create, fmt::format("cannot write to standard output: {}", std::strerror(errno)));
}

std::string read_file_capped(const std::string& path, const std::string& what, std::size_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) fail(Exit::no_input, fmt::format("cannot read {} '{}': it is a directory", what, shown(path)));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(Exit::no_input, fmt::format("cannot read {} '{}': {}", what, shown(path), std::strerror(errno)));
  const auto too_big = [&](const std::string& size) {
    std::fclose(f);
    fail(Exit::data, fmt::format("{}: error: the {} is {}; a {} is at most {} MiB", shown(path), what, size, what,
                                 max_bytes >> 20));
  };
  if (fs::is_regular_file(path, ec)) {
    const auto size = fs::file_size(path, ec);
    if (!ec && size > max_bytes) too_big(format_iec(static_cast<double>(size)));
  }
  std::string text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
    text.append(buf, n);
    if (text.size() > max_bytes) too_big(fmt::format("more than {} MiB", max_bytes >> 20));
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) fail(Exit::no_input, fmt::format("cannot read {} '{}': read error", what, shown(path)));
  return text;
}

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
