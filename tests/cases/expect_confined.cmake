# Run fesim-mesh on SCRIPT (copied into a fresh WORK folder, which is the
# process's working directory and its one readable folder) and require:
#  - WORK holds the script alone afterwards (nothing written or created);
#  - a script that reads a file outside WORK (/etc/...) fails with Gmsh's
#    "Unable to open file" (skipped where the kernel has no Landlock);
#  - the mesher did not crash (exit 0 or 2) and printed no mesh it should
#    not have been able to make from what it read.
# cmake -DMESHER=... -DSCRIPT=... -DWORK=... -P expect_confined.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
get_filename_component(name ${SCRIPT} NAME)
configure_file(${SCRIPT} ${WORK}/${name} COPYONLY)
execute_process(COMMAND ${MESHER} --summary --read-dir ${WORK} --time-limit 60 ${name}
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("exit ${rc}\nstdout: ${out}\nstderr: ${err}")
file(GLOB left RELATIVE ${WORK} ${WORK}/*)
if(NOT left STREQUAL "${name}")
  message(FATAL_ERROR "the script escaped: ${WORK} now holds ${left}")
endif()
if(NOT rc MATCHES "^(0|2)$")
  message(FATAL_ERROR "fesim-mesh exited with '${rc}'; expected 0 or 2")
endif()
file(READ ${SCRIPT} text)
if(text MATCHES "(Include|Merge) \"/etc/")
  if(out MATCHES "Landlock ABI 0")
    message(FATAL_ERROR "FESIM_SKIP: no Landlock in this kernel; seccomp and the script check still hold")
  endif()
  if(NOT rc STREQUAL "2" OR NOT err MATCHES "Unable to open file '/etc/")
    message(FATAL_ERROR "a file outside the case's folder was read")
  endif()
endif()
