# A restart whose stat file does not fit its checkpoint is refused before anything is written:
# the outputs of RUN (a real run of CASE, with its checkpoint of step 4) copied to OUT, OUT's
# stat file edited (EDIT: columns, missing_row, other_time; none), then --check --restart and the
# real run must each exit 2 with one message matching REGEX, and OUT stay as it was, byte for
# byte (no lock file, no temporary, the stat file not cut).
#   cmake -DFESIM=... -DCASE=... -DRUN=... -DOUT=... -DEDIT=... -DREGEX=... -P restart_stat.cmake
set(expect_exit ${CMAKE_CURRENT_LIST_DIR}/../cases/expect_exit.cmake)
file(REMOVE_RECURSE ${OUT})
file(COPY ${RUN}/ DESTINATION ${OUT})
file(STRINGS ${OUT}/bad.stat lines)
list(GET lines 0 header)
if(EDIT STREQUAL "columns") # the columns of a case with an exact solution
  string(REPLACE "integral," "integral,l2_error,linf_error," header "${header}")
  list(REMOVE_AT lines 0)
  list(INSERT lines 0 "${header}")
elseif(EDIT STREQUAL "missing_row") # the header and rows 0 to 3
  list(SUBLIST lines 0 5 lines)
elseif(EDIT STREQUAL "none") # the stat file fits (another of OUT's files does not)
elseif(EDIT STREQUAL "other_time") # row 4 at another time
  list(GET lines 5 row)
  string(REGEX REPLACE "^4,[^,]*," "4,0.5," row "${row}")
  list(REMOVE_AT lines 5)
  list(INSERT lines 5 "${row}")
else()
  message(FATAL_ERROR "unknown EDIT '${EDIT}'")
endif()
string(REPLACE ";" "\n" text "${lines}")
file(WRITE ${OUT}/bad.stat "${text}\n")

function(snapshot var)
  file(GLOB_RECURSE files LIST_DIRECTORIES true RELATIVE ${OUT} ${OUT}/*)
  list(SORT files)
  set(result "")
  foreach(f ${files})
    file(SHA256 ${OUT}/${f} hash)
    list(APPEND result "${f}=${hash}")
  endforeach()
  set(${var} "${result}" PARENT_SCOPE)
endfunction()

snapshot(before)
foreach(mode "--check" "")
  set(args ${mode} --output ${OUT} --restart ${OUT}/bad_checkpoint_000004.bin ${CASE})
  execute_process(COMMAND ${CMAKE_COMMAND} "-DFESIM=${FESIM}" "-DARGS=${args}" -DCODE=2
                          "-DREGEX=${REGEX}" -P ${expect_exit}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fesim ${args}: ${out}${err}")
  endif()
  snapshot(after)
  if(NOT after STREQUAL before)
    message(FATAL_ERROR "fesim ${args} changed ${OUT}:\nbefore: ${before}\nafter:  ${after}")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
