// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/cli.hpp"

int main(int argc, char** argv) { return gpuplan::cli_main(argc, argv); }
