# Run fesim with ARGS (a ;-list) and require exit code CODE and one error
# message matching REGEX on stderr, nothing else there (no libxml2 or
# Gmsh output); exit through SKIP_IF_OK (CTest skip, 77)
# when fesim succeeds instead and SKIP_IF_OK is set (e.g. a GPU is present).
# cmake -DFESIM=... "-DARGS=..." -DCODE=... -DREGEX=... [-DSKIP_IF_OK=reason] -P expect_exit.cmake
execute_process(COMMAND ${FESIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc STREQUAL "0" AND SKIP_IF_OK)
  message("skipped: ${SKIP_IF_OK}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E false) # no portable exit(77) in -P scripts:
  message(FATAL_ERROR "FESIM_SKIP")                   # the test's SKIP_REGULAR_EXPRESSION catches this
endif()
if(NOT rc STREQUAL "${CODE}")
  message(FATAL_ERROR "expected exit code ${CODE}, got '${rc}'\nstderr:\n${err}")
endif()
string(REGEX MATCHALL "fesim: error: " errors "${err}")
list(LENGTH errors n_errors)
if(NOT n_errors EQUAL 1)
  message(FATAL_ERROR "expected exactly one error message, got ${n_errors}:\n${err}")
endif()
if(NOT err MATCHES "^(fesim: [^\n]*\n)*$")
  message(FATAL_ERROR "stray output on stderr (lines not from fesim):\n${err}")
endif()
if(NOT err MATCHES "${REGEX}")
  message(FATAL_ERROR "stderr does not match '${REGEX}':\n${err}")
endif()
