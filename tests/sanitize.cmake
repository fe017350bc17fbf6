# Memory and undefined-behaviour checks (label sanitize) and fuzzing (label
# fuzz), run from the main build so that CI's one ctest line runs them:
#   sanitize.build      configure and build fesim with AddressSanitizer,
#                       LeakSanitizer and UndefinedBehaviorSanitizer
#                       (FESIM_SANITIZE, this build's C compiler, no CUDA) in
#                       BUILD/asan, then run that tree's own tests:
#   sanitize.unit       label unit (with the io dump tests)
#   sanitize.bad_input  label bad_input: every error path of the case and mesh
#   sanitize.case       label case, except those labelled long (fe_long in
#                       cases.cmake: convergence studies and revolutions on fine
#                       meshes, 11 min of CPU for rotating_gaussian's alone when
#                       sanitized; each such case keeps shorter checks there,
#                       and the other cases cover the same code); GPU and
#                       ParaView tests are left out
#   sanitize.valgrind   valgrind memcheck of this build's fesim on short runs
#                       (tests/sanitize/valgrind.sh); skipped without valgrind
#   fuzz.build          the libFuzzer targets (FESIM_FUZZ, clang) in BUILD/fuzz
#   fuzz.case, fuzz.mesh, fuzz.geo  the case reader, and the mesh reader on
#                       .msh files and on .geo scripts, fuzzed for 60 s each
#                       from seeds gathered at test time (tests/fuzz/run.cmake)
#   fuzz.checkpoint     the checkpoint reader and its checks against a run, 60 s,
#                       from seeds the target writes with the writer under test
#   fuzz.snapshot       the readers of velocity files (legacy VTK, VTK XML, Gmsh
#                       $NodeData), 60 s, from the files of tests/data/velocity
# Leaks inside third-party libraries are suppressed by tests/sanitize/lsan.supp
# and valgrind.supp, each entry explained there.  In the checked trees
# themselves this file only sets the sanitizers' options on every test, so
# that `ctest` there works alone; they do not register these tests again.
set(FE_SANITIZE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/sanitize)
set(FE_LSAN_SUPP ${FE_SANITIZE_DIR}/lsan.supp)

if(FESIM_SANITIZE OR FESIM_FUZZ)
  # A leak inside Gmsh may show no Gmsh frame with the fast unwinder (Gmsh has
  # no frame pointers): rerun with ASAN_OPTIONS=fast_unwind_on_malloc=0 to see it.
  get_property(fe_tests DIRECTORY PROPERTY TESTS)
  foreach(test ${fe_tests})
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
      "ASAN_OPTIONS=strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
      "LSAN_OPTIONS=suppressions=${FE_LSAN_SUPP}:print_suppressions=0")
  endforeach()
  return()
endif()

set(FE_ASAN_TREE ${CMAKE_BINARY_DIR}/asan)
set(FE_FUZZ_TREE ${CMAKE_BINARY_DIR}/fuzz)
set(FE_CHECKED_TREE_ARGS -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFESIM_ENABLE_CUDA=OFF
                         -DFESIM_WERROR=${FESIM_WERROR})

add_test(NAME sanitize.build
         COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DBIN=${FE_ASAN_TREE}
                 "-DARGS=${FE_CHECKED_TREE_ARGS};-DFESIM_SANITIZE=ON;-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}"
                 -P ${FE_SANITIZE_DIR}/build.cmake)
set_tests_properties(sanitize.build PROPERTIES LABELS sanitize FIXTURES_SETUP fe_asan_tree
                     PROCESSORS 2 TIMEOUT 1200)

# fe_sanitized(NAME JOBS CTEST_ARGS...): the sanitized tree's tests selected by CTEST_ARGS.
function(fe_sanitized name jobs)
  add_test(NAME sanitize.${name}
           COMMAND ${CMAKE_CTEST_COMMAND} --output-on-failure --timeout 900 -j ${jobs} ${ARGN}
           WORKING_DIRECTORY ${FE_ASAN_TREE})
  set_tests_properties(sanitize.${name} PROPERTIES LABELS sanitize FIXTURES_REQUIRED fe_asan_tree
                       PROCESSORS ${jobs} TIMEOUT 1800)
endfunction()
fe_sanitized(unit 1 -L unit)
fe_sanitized(bad_input 2 -L bad_input)
fe_sanitized(case 2 -L case -LE long)

find_program(FE_VALGRIND valgrind)
add_test(NAME sanitize.valgrind
         COMMAND ${FE_SANITIZE_DIR}/valgrind.sh "${FE_VALGRIND}" $<TARGET_FILE:fesim>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/valgrind
                 ${FE_SANITIZE_DIR}/valgrind.supp)
set_tests_properties(sanitize.valgrind PROPERTIES LABELS sanitize SKIP_RETURN_CODE 77 TIMEOUT 900)

# libFuzzer comes with clang (Debian: clang and libclang-rt-*-dev).
find_program(FE_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
if(NOT FE_CLANG)
  foreach(name build case mesh geo checkpoint snapshot)
    add_test(NAME fuzz.${name} COMMAND sh -c "echo 'skipped: clang not found'; exit 77")
    set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz SKIP_RETURN_CODE 77)
  endforeach()
  return()
endif()
add_test(NAME fuzz.build
         COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DBIN=${FE_FUZZ_TREE}
                 "-DARGS=${FE_CHECKED_TREE_ARGS};-DFESIM_FUZZ=ON;-DBUILD_TESTING=OFF;-DCMAKE_C_COMPILER=${FE_CLANG}"
                 "-DTARGETS=fuzz_case;fuzz_mesh;fuzz_geo;fuzz_checkpoint;fuzz_snapshot" -P ${FE_SANITIZE_DIR}/build.cmake)
set_tests_properties(fuzz.build PROPERTIES LABELS fuzz FIXTURES_SETUP fe_fuzz_tree PROCESSORS 2
                     TIMEOUT 900)

# fe_fuzz(NAME SEEDS [ARGS...]): fuzz_NAME for 60 s from the seed files SEEDS (globs).
function(fe_fuzz name seeds)
  add_test(NAME fuzz.${name}
           COMMAND ${CMAKE_COMMAND} -DFUZZER=${FE_FUZZ_TREE}/tests/fuzz/fuzz_${name}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/fuzz/${name} "-DSEEDS=${seeds}"
                   -DDICT=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${name}.dict -DSUPP=${FE_LSAN_SUPP}
                   -DTIME=60 ${ARGN} -P ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run.cmake)
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fe_fuzz_tree
                       TIMEOUT 600)
endfunction()
fe_fuzz(case "${PROJECT_SOURCE_DIR}/cases/*/*.xml;${CMAKE_CURRENT_SOURCE_DIR}/bad_input/*.xml;${CMAKE_CURRENT_SOURCE_DIR}/data/case/*.xml"
        -DXSD=${PROJECT_SOURCE_DIR}/io/fesim.xsd)
# Gmsh runs in the meshing process (io/mesher.h), which is started for each
# input: these fuzz fesim's side (the script check, the stream handed back,
# the checks of the mesh) with Gmsh's real answers, a few hundred inputs a minute.
fe_fuzz(mesh "${CMAKE_CURRENT_SOURCE_DIR}/data/mesh/*.msh")
fe_fuzz(geo "${PROJECT_SOURCE_DIR}/cases/*/*.geo;${CMAKE_CURRENT_SOURCE_DIR}/data/mesh/*.geo;${CMAKE_CURRENT_SOURCE_DIR}/data/geo/*.geo")
fe_fuzz(checkpoint "" -DWRITE_SEEDS=1)
# the velocity files' readers, from the files of the bad-input tests and cases/offline_tracer's
fe_fuzz(snapshot "${CMAKE_CURRENT_SOURCE_DIR}/data/velocity/*")
