# A bad input must stop fesim before it writes anything: run
#   fesim --output OUT ARGS... CASE
# (a real run, not --check) and require what expect_exit.cmake requires (exit
# code CODE, one error message matching REGEX), then that OUT is as it was:
#  1. OUT absent: it stays absent;
#  2. OUT a directory holding the outputs of an earlier run of CASE (NAME.run,
#     NAME.stat, a dump, the series; NAME from -DNAME, default "bad"): the
#     same files, byte for byte, and nothing else;
#  3. with -DOUT_IS_FILE=1 only: OUT a regular file: still that file, unchanged.
# cmake -DFESIM=... -DCASE=... -DOUT=... "-DARGS=..." -DCODE=... -DREGEX=...
#       [-DNAME=...] [-DOUT_IS_FILE=1] -P expect_untouched.cmake
set(expect_exit ${CMAKE_CURRENT_LIST_DIR}/expect_exit.cmake)
if(NOT NAME)
  set(NAME bad)
endif()

function(run_fesim phase)
  set(args --output ${OUT} ${ARGS} ${CASE})
  execute_process(COMMAND ${CMAKE_COMMAND} "-DFESIM=${FESIM}" "-DARGS=${args}" "-DCODE=${CODE}"
                          "-DREGEX=${REGEX}" -P ${expect_exit}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${phase}: ${out}${err}")
  endif()
endfunction()

# The files under OUT, each with its SHA-256: "name=hash;...".
function(snapshot var)
  file(GLOB_RECURSE files LIST_DIRECTORIES true RELATIVE ${OUT} ${OUT}/*)
  list(SORT files)
  set(result "")
  foreach(f ${files})
    if(IS_DIRECTORY ${OUT}/${f})
      list(APPEND result "${f}/")
    else()
      file(SHA256 ${OUT}/${f} hash)
      list(APPEND result "${f}=${hash}")
    endif()
  endforeach()
  set(${var} "${result}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${OUT})
if(OUT_IS_FILE)
  file(WRITE ${OUT} "a regular file where the output directory should be\n")
  file(SHA256 ${OUT} before)
  run_fesim("output path a regular file")
  if(IS_DIRECTORY ${OUT} OR NOT EXISTS ${OUT})
    message(FATAL_ERROR "${OUT} was a regular file and is no longer one")
  endif()
  file(SHA256 ${OUT} after)
  if(NOT after STREQUAL before)
    message(FATAL_ERROR "${OUT} was a regular file and was modified")
  endif()
  file(REMOVE ${OUT})
  return()
endif()

run_fesim("no output directory")
if(EXISTS ${OUT})
  snapshot(found)
  message(FATAL_ERROR "${OUT} did not exist and was created, holding: ${found}")
endif()

get_filename_component(case_path ${CASE} REALPATH)
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/${NAME}.run "case ${case_path}\nfesim earlier\n")
file(WRITE ${OUT}/${NAME}.stat "step,time,dt,min,max,integral\n0,0,0,0,1,0.25\n")
file(WRITE ${OUT}/${NAME}_000000.vtk "an earlier dump\n")
file(WRITE ${OUT}/${NAME}.vtk.series "{\"file-series-version\": \"1.0\", \"files\": []}\n")
snapshot(before)
run_fesim("output directory of an earlier run")
snapshot(after)
if(NOT after STREQUAL before)
  message(FATAL_ERROR "the output directory ${OUT} changed:\nbefore: ${before}\nafter:  ${after}")
endif()
file(REMOVE_RECURSE ${OUT})
