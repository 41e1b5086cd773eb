#pragma once
// Output files: written to a temporary name in the same directory and renamed, so a reader
// never sees half a file and an error leaves nothing behind. An existing file is replaced
// only with force. Errors are Error(cant_create), exit 73.
#include <string>

namespace gpuplan {

void write_file_atomic(const std::string& path, const std::string& content, bool force);
// The checks write_file_atomic starts with, for commands that should refuse an impossible
// output before doing a minute of work.
void check_output(const std::string& path, bool force);

}  // namespace gpuplan
