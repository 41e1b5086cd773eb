# SPDX-License-Identifier: Apache-2.0
# The web build: the same analyses compiled to WebAssembly with Debian's emscripten package,
#   emcmake cmake -S . -B build-web && cmake --build build-web --target web
# into build-web/web/ (index.html and gpuplan.js, the WebAssembly inside it), a static page that
# runs wholly in the browser. The libraries are the host's Debian packages, all header-only here
# (fmt in its header-only mode): their directories alone are linked into one include directory,
# so that the host's C headers never mix with emscripten's.
set(gpuplan_web_include "${PROJECT_BINARY_DIR}/web-include")
file(MAKE_DIRECTORY "${gpuplan_web_include}")
foreach(dir fmt toml++ nlohmann CLI boost eigen3/Eigen)
  if(NOT EXISTS "/usr/include/${dir}")
    message(FATAL_ERROR "the web build needs /usr/include/${dir} (scripts/bootstrap installs the packages)")
  endif()
  get_filename_component(name "${dir}" NAME)
  if(NOT EXISTS "${gpuplan_web_include}/${name}")
    file(CREATE_LINK "/usr/include/${dir}" "${gpuplan_web_include}/${name}" SYMBOLIC)
  endif()
endforeach()
function(gpuplan_web_headers target)
  add_library(${target} INTERFACE IMPORTED)
  target_include_directories(${target} SYSTEM INTERFACE "${gpuplan_web_include}")
  if(ARGN)
    target_compile_definitions(${target} INTERFACE ${ARGN})
  endif()
endfunction()
gpuplan_web_headers(fmt::fmt FMT_HEADER_ONLY=1)
gpuplan_web_headers(CLI11::CLI11)
gpuplan_web_headers(tomlplusplus::tomlplusplus TOML_HEADER_ONLY=1)
gpuplan_web_headers(nlohmann_json::nlohmann_json)
gpuplan_web_headers(Boost::headers)
gpuplan_web_headers(Eigen3::Eigen)
set(GPUPLAN_TOML_HEADER_ONLY ON)
# C++ exceptions carry every error to its one-line message, as in the native binary.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
# Debian's emscripten finds its JavaScript tools (acorn) under /usr/share/nodejs, which a node
# from outside Debian's own package does not search: every compile and link is given the path.
if(EXISTS "/usr/share/nodejs")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND}" -E env NODE_PATH=/usr/share/nodejs)
  set(CMAKE_CXX_LINKER_LAUNCHER "${CMAKE_COMMAND}" -E env NODE_PATH=/usr/share/nodejs)
endif()
