# Run `fesim --check CASE` and require exit code 2 and one error message
# matching REGEX on stderr (nothing from libxml2 or libmatheval besides).
# cmake -DFESIM=... -DCASE=... -DREGEX=... -P expect_error.cmake
execute_process(COMMAND ${FESIM} --check ${CASE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "2")
  message(FATAL_ERROR "expected exit code 2 for ${CASE}, got '${rc}'\nstderr:\n${err}")
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
