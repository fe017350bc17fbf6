# Configure and build a checked tree of fesim (tests/sanitize.cmake):
#   cmake -DSRC=DIR -DBIN=DIR "-DARGS=-DOPTION=...;..." ["-DTARGETS=a;b"] -P build.cmake
# The output of both steps is printed only when one fails.
cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring ${BIN} failed:\n${out}")
endif()
set(targets "")
if(TARGETS)
  set(targets --target ${TARGETS})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j ${jobs} ${targets}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building ${BIN} failed:\n${out}")
endif()
message("built ${BIN} (${ARGS})")
