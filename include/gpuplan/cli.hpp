// SPDX-License-Identifier: Apache-2.0
#pragma once
namespace gpuplan {
// Parses argv, runs one subcommand, prints its result; returns the exit status.
int cli_main(int argc, char** argv);
}  // namespace gpuplan
