// SPDX-License-Identifier: Apache-2.0
#pragma once
// Output files: written to a temporary name in the same directory and renamed, so a reader
// never sees half a file and an error leaves nothing behind. An existing file is replaced
// only with force. Errors are Error(cant_create), exit 73.
#include <cstddef>
#include <chrono>
#include <string>
#include <string_view>

namespace gpuplan {

void write_file_atomic(const std::string& path, const std::string& content, bool force);
// The checks write_file_atomic starts with, for commands that should refuse an impossible
// output before doing a minute of work.
void check_output(const std::string& path, bool force);

// Writes to standard output; a failed write (a full disk, a closed pipe) is Error(cant_create).
void write_stdout(const std::string& content);

// Reads a file of any type (a pipe, /dev/zero) up to max_bytes: Error(no_input) when it cannot be
// opened or is a directory, Error(data) "PATH: error: the WHAT is SIZE; WHAT files are at most
// MAX" when longer, so that no read grows without bound.
std::string read_file_capped(const std::string& path, const std::string& what, std::size_t max_bytes);

// Progress of work that can run past a second (the probe, a plan of many scenarios): one line on
// stderr, "gpuplan: probe: 3 of 8, GEMM fp32 n = 2048", rewritten in place, shown only when
// stderr is a terminal, GPUPLAN_NO_PROGRESS is unset and the work has run a second; erased
// when the work ends, so a terminal keeps only the command's own messages and a pipe, a file
// or a test sees nothing.
class Progress {
public:
  Progress(std::string what, int total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // Starts item `detail` (the next of total).
  void next(std::string_view detail);

private:
  std::string what_;
  int total_, done_ = 0;
  bool enabled_, shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gpuplan
