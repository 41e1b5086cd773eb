// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/commands.hpp"

namespace gpuplan {
const char* version_string() { return "gpuplan " GPUPLAN_VERSION " (" GPUPLAN_COMMIT ")"; }
}  // namespace gpuplan
