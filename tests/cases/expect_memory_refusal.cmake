# A mesh within the cell limit that the memory available cannot hold is refused
# before its surfaces are meshed (exit 2, the estimate and the memory in the
# message).  CASE asks for about 9e7 triangles (86 GiB at 1 KiB each): on a
# machine with 80 GiB or more available the test is skipped, never run.
# cmake -DFESIM=... -DCASE=... -P expect_memory_refusal.cmake
file(STRINGS /proc/meminfo lines REGEX "^MemAvailable:")
string(REGEX MATCH "[0-9]+" kb "${lines}")
if(NOT kb OR kb GREATER 83886080)
  message(FATAL_ERROR "FESIM_SKIP: ${kb} kB of memory available; the case would fit")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} "-DFESIM=${FESIM}" "-DARGS=--check;${CASE}" -DCODE=2
                        "-DREGEX=data/geo/square\\.geo: meshing it at <mesh size=\"0\\.00016\"> would make about 9(\\.0)?e\\+07 triangles \\(an area of about 1 at edges of about 0\\.00016\\), which need about 86\\.[0-9] GiB, more than the [0-9.]+ GiB of memory available; mesh it coarser, or give --max-cells to mesh it anyway"
                        -P ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out}${err}")
endif()
