# A bad command line: fesim ARGS must exit 1 with one error line first on stderr, matching
# REGEX, then the usage; nothing on stdout.
#   cmake -DFESIM=... "-DARGS=..." -DREGEX=... -P expect_usage.cmake
execute_process(COMMAND ${FESIM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "fesim: error: " errors "${err}")
list(LENGTH errors n_errors)
if(NOT rc EQUAL 1 OR NOT n_errors EQUAL 1 OR NOT out STREQUAL ""
   OR NOT err MATCHES "^fesim: error: [^\n]*\nusage: fesim \\[options\\] CASE\\.xml\n"
   OR NOT err MATCHES "^fesim: error: ${REGEX}\n")
  message(FATAL_ERROR "fesim ${ARGS}: exit ${rc}\nstdout: ${out}\nstderr:\n${err}\nexpected exit 1, one message '${REGEX}', then the usage")
endif()
