# The meshing process (io/mesher.h).  Its sandbox (io/sandbox.h), tested past the script check:
# each tests/data/geo/escape_*.geo goes straight to fesim-mesh, in a fresh
# folder of its own, and must write, create or run nothing there (the
# scripts use relative names), nor read a file outside that folder
# (tests/cases/expect_confined.cmake).  Label bad_input.
file(GLOB FE_ESCAPES ${CMAKE_CURRENT_SOURCE_DIR}/data/geo/escape_*.geo)
foreach(script ${FE_ESCAPES})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME mesher.${name}
           COMMAND ${CMAKE_COMMAND} -DMESHER=$<TARGET_FILE:fesim-mesh> -DSCRIPT=${script}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/sandbox/${name}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_confined.cmake)
  set_tests_properties(mesher.${name} PROPERTIES LABELS bad_input SKIP_REGULAR_EXPRESSION "FESIM_SKIP")
endforeach()

# A script that asks Gmsh for 16 threads (tests/data/geo/threads.geo), meshed ten
# times: curves single-threaded, every run succeeds (label case).
add_test(NAME mesher.geo_threads
         COMMAND sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do $<TARGET_FILE:fesim> --check --quiet $0 >/dev/null || exit 1; done"
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/geo/threads.xml)
set_tests_properties(mesher.geo_threads PROPERTIES LABELS case)

# A run uses the threads it was given: the mesh of a .geo case read, the CPU
# backend still runs on OMP_NUM_THREADS (Gmsh 4.8 sets one thread in the
# process that runs it; fesim 0.1 ran every CPU run on one).  Label case.
add_test(NAME mesher.threads_kept
         COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=3
                 $<TARGET_FILE:fesim> --backend cpu --output ${CMAKE_CURRENT_BINARY_DIR}/mesher/threads
                 --force ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/good.xml)
set_tests_properties(mesher.threads_kept PROPERTIES LABELS case
                     PASS_REGULAR_EXPRESSION "\\(backend cpu, 3 threads, assembly lma\\)")

# Progress of meshing: --verbose names each stage, with the cell estimate (label case).
add_test(NAME mesher.progress
         COMMAND $<TARGET_FILE:fesim> --check --verbose ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/good.xml)
set_tests_properties(mesher.progress PROPERTIES LABELS case PASS_REGULAR_EXPRESSION
  "fesim: mesh [^\n]*square\\.geo: confined: (Landlock|no Landlock in this kernel), seccomp, no file writes[^\n]*\nfesim: mesh [^\n]*: running the script[^\n]*\nfesim: mesh [^\n]*: meshing curves[^\n]*\nfesim: mesh [^\n]*: meshing surfaces \\(about [0-9.e+]+ triangles\\)")

# A mesh beyond the memory available, within the cell limit: refused from the estimate
# (tests/cases/expect_memory_refusal.cmake; skipped where 80 GiB or more are available).
add_test(NAME mesher.beyond_memory
         COMMAND ${CMAKE_COMMAND} -DFESIM=$<TARGET_FILE:fesim>
                 -DCASE=${CMAKE_CURRENT_SOURCE_DIR}/bad_input/geo_beyond_memory.xml
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_memory_refusal.cmake)
set_tests_properties(mesher.beyond_memory PROPERTIES LABELS bad_input SKIP_REGULAR_EXPRESSION "FESIM_SKIP")
