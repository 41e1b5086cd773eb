# Compiles catalogs/*.toml into the binary so that gpuplan works from any directory.
# gpuplan_embed_catalogs(OUT file.cpp DIR catalogs) writes a translation unit holding
# each file as a raw string, regenerated whenever a catalog changes.
function(gpuplan_embed_catalogs)
  cmake_parse_arguments(ARG "" "OUT;DIR" "" ${ARGN})
  file(GLOB files CONFIGURE_DEPENDS "${ARG_DIR}/*.toml")
  list(SORT files)
  add_custom_command(
    OUTPUT "${ARG_OUT}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${ARG_OUT} "-DFILES=${files}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_catalogs_script.cmake"
    DEPENDS ${files} "${PROJECT_SOURCE_DIR}/cmake/embed_catalogs_script.cmake"
    COMMENT "Embedding catalogs"
    VERBATIM)
endfunction()
