#pragma once
// Output files: written to a temporary name in the same directory and renamed, so a reader
// never sees half a file and an error leaves nothing behind. An existing file is replaced
// only with force. Errors are Error(cant_create), exit 73.
#include <cstddef>
#include <string>

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

}  // namespace gpuplan
