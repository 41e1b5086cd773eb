# SPDX-License-Identifier: Apache-2.0
# Warnings are carried by an INTERFACE target that only project code links (ccache's idea):
# users building a release with a newer compiler are not broken by -Werror, CI is. C++ only:
# the CUDA probe's one .cu file goes through nvcc, which has its own flags.
add_library(gpuplan_warnings INTERFACE)
target_compile_options(gpuplan_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wconversion -Wshadow>
  # GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ for "literal" + std::string
  # (GCC bug 105329, fixed in GCC 13).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPUPLAN_WARNINGS_AS_ERRORS}>>:-Werror>)
