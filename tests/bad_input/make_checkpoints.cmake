# The checkpoints of the --restart tests: a real run of CASE (restart.xml)
# into OUT/run, then make_checkpoints' variants of its checkpoint of step 4
# into OUT (tests/bad_input/make_checkpoints.c).
#   cmake -DFESIM=... -DMAKE=... -DCASE=... -DOUT=... -P make_checkpoints.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${FESIM} --quiet --output ${OUT}/run ${CASE} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fesim ${CASE} exited ${rc}:\n${err}")
endif()
execute_process(COMMAND ${MAKE} variants ${OUT}/run/bad_checkpoint_000004.bin ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_checkpoints exited ${rc}:\n${err}")
endif()
