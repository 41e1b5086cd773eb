// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/output.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <csignal>
#include <fcntl.h>
#include <iterator>
#include <optional>
#include <utility>
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

namespace {
// "-" and /dev/stdout name standard output: written there, never renamed over.
bool is_stdout(const std::string& path) { return path == "-" || path == "/dev/stdout"; }
}  // namespace

void check_output(const std::string& path, bool force) {
  if (is_stdout(path)) return;
  struct stat st {};
  // lstat: a symbolic link (dangling or not) is the thing at the path, never followed.
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) fail(Exit::cant_create, fmt::format("cannot write '{}': it is a directory", shown(path)));
  if (force) {
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      fail(Exit::cant_create, fmt::format("cannot write '{}': it is not a regular file", shown(path)));
    return;
  }
  if (S_ISLNK(st.st_mode))
    fail(Exit::cant_create, fmt::format("'{}' is a symbolic link; use --force to replace the link itself", shown(path)));
  fail(Exit::cant_create, fmt::format("'{}' exists; use --force to replace it", shown(path)));
}

namespace {

// The temporary file being written, removed if a signal ends the process before the rename.
// A fixed buffer: the handler may only call async-signal-safe functions (unlink, signal, raise).
char pending_temp[4096];
volatile std::sig_atomic_t have_pending = 0;
constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};

extern "C" void remove_pending_and_die(int sig) {
  if (have_pending) ::unlink(pending_temp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class PendingTemp {
public:
  explicit PendingTemp(const std::string& path) {
    std::snprintf(pending_temp, sizeof pending_temp, "%s", path.c_str());
    for (std::size_t i = 0; i < std::size(cleanup_signals); ++i)
      previous_[i] = std::signal(cleanup_signals[i], remove_pending_and_die);
    have_pending = 1;
  }
  ~PendingTemp() {
    have_pending = 0;
    for (std::size_t i = 0; i < std::size(cleanup_signals); ++i) std::signal(cleanup_signals[i], previous_[i]);
  }
  PendingTemp(const PendingTemp&) = delete;
  PendingTemp& operator=(const PendingTemp&) = delete;

private:
  void (*previous_[std::size(cleanup_signals)])(int) = {};
};

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content, bool force) {
  namespace fs = std::filesystem;
  if (is_stdout(path)) return write_stdout(content);
  check_output(path, force);
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  if (tmpl.size() >= sizeof pending_temp) fail(Exit::cant_create, fmt::format("cannot write '{}': the path is too long", shown(path)));
  // The mode of the file replaced, else what a plain open() would give (0666 less the umask);
  // mkstemp itself creates 0600.
  struct stat old {};
  mode_t mode = 0;
  if (::lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  const auto give_up = [&](int err, bool remove) {
    if (remove) ::unlink(tmpl.c_str());
    fail(Exit::cant_create, fmt::format("cannot write '{}': {}", shown(path), std::strerror(err)));
  };
  // Signals are blocked from mkstemp until the handler knows the name, so none leaves it behind.
  sigset_t all, before;
  sigfillset(&all);
  ::sigprocmask(SIG_BLOCK, &all, &before);
  const int fd = mkstemp(tmpl.data());
  const int made = errno;
  std::optional<PendingTemp> pending;
  if (fd >= 0) pending.emplace(tmpl);
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (fd < 0) give_up(made, false);
  std::size_t done = 0;
  bool ok = ::fchmod(fd, mode) == 0;
  while (ok && done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  // The data reaches the disk before the name does, and the name before we report success.
  ok = ok && ::fsync(fd) == 0;
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok) give_up(err, true);
  if (force) {
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) give_up(errno, true);
  } else {
    // Without --force the name is taken only if it is still free: of two runs racing to one
    // path, exactly one succeeds (renameat2 with RENAME_NOREPLACE; where the file system lacks
    // it, link, which fails on an existing name, then unlink).
#ifdef RENAME_NOREPLACE
    int moved = ::renameat2(AT_FDCWD, tmpl.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
#else
    int moved = -1;  // a C library without renameat2 (the web build's): link and unlink
    errno = ENOSYS;
#endif
    if (moved != 0 && (errno == EINVAL || errno == ENOSYS)) {
      moved = ::link(tmpl.c_str(), path.c_str());
      if (moved == 0) ::unlink(tmpl.c_str());
    }
    if (moved != 0) {
      const int e = errno;
      ::unlink(tmpl.c_str());
      have_pending = 0;
      if (e == EEXIST)
        fail(Exit::cant_create, fmt::format("'{}' exists (written meanwhile by another process); use --force to replace it",
                                            shown(path)));
      give_up(e, false);
    }
  }
  have_pending = 0;
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    const bool synced = ::fsync(dfd) == 0 || errno == EINVAL;  // some file systems cannot sync a directory
    ::close(dfd);
    if (!synced) fail(Exit::cant_create, fmt::format("cannot write '{}': the directory could not be synced", shown(path)));
  }
}

Progress::Progress(std::string what, int total)
    : what_(std::move(what)),
      total_(total),
      enabled_(isatty(STDERR_FILENO) && !std::getenv("GPUPLAN_NO_PROGRESS")),
      start_(std::chrono::steady_clock::now()) {}

void Progress::next(std::string_view detail) {
  ++done_;
  if (!enabled_) return;
  if (!shown_ && std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
  shown_ = true;
  // \r to the line start, \033[K erases the rest of the previous line.
  std::fprintf(stderr, "\rgpuplan: %s: %d of %d, %.*s\033[K", what_.c_str(), std::min(done_, total_), total_,
               static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
}

Progress::~Progress() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

}  // namespace gpuplan
