# Run a libFuzzer target for a bounded time on a seed corpus gathered now,
# and fail on a crash, a sanitizer report, a leak, an input that runs longer
# than INPUT_TIMEOUT seconds or memory beyond RSS_MB, naming the reproducer.
#   cmake -DFUZZER=EXE -DWORK=DIR "-DSEEDS=GLOB;..." [-DDICT=FILE] [-DXSD=FILE]
#         [-DSUPP=LSAN_SUPPRESSIONS] [-DFULL_STACKS=1] [-DTIME=60] [-DINPUT_TIMEOUT=10]
#         [-DRSS_MB=2048] [-DWRITE_SEEDS=1] -P run.cmake
# WRITE_SEEDS: the target writes seeds of its own first (FESIM_FUZZ_WRITE_SEEDS=DIR, then it
# exits; fuzz_checkpoint.c), so that they follow the current file format; SEEDS may then
# match nothing.
# XSD: the case schema, whose element, attribute and enumeration names are
# added to the dictionary.  WORK gets seeds/, corpus/ (what the run found),
# artifacts/ (reproducers), fuzz.log and the dictionary; all start empty each
# time, so every run starts from the same corpus.
foreach(var FUZZER WORK SEEDS)
  if(NOT DEFINED ${var} AND NOT (var STREQUAL "SEEDS" AND WRITE_SEEDS))
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT TIME)
  set(TIME 60)
endif()
if(NOT INPUT_TIMEOUT)
  set(INPUT_TIMEOUT 10)
endif()
if(NOT RSS_MB)
  set(RSS_MB 2048)
endif()

set(seeds ${WORK}/seeds)
set(corpus ${WORK}/corpus)
set(artifacts ${WORK}/artifacts)
set(log ${WORK}/fuzz.log)
file(REMOVE_RECURSE ${seeds} ${corpus} ${artifacts} ${WORK}/tmp)
file(MAKE_DIRECTORY ${seeds} ${corpus} ${artifacts} ${WORK}/tmp)

# Seeds, named after their folder too (cases/*/case.xml share a name).
set(n_seeds 0)
if(WRITE_SEEDS)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env FESIM_FUZZ_WRITE_SEEDS=${seeds} ${FUZZER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  file(GLOB made ${seeds}/*)
  list(LENGTH made n_seeds)
  if(NOT rc EQUAL 0 OR n_seeds EQUAL 0)
    message(FATAL_ERROR "${FUZZER} wrote no seeds (exit ${rc}):\n${out}")
  endif()
endif()
foreach(pattern ${SEEDS})
  file(GLOB files ${pattern})
  foreach(f ${files})
    get_filename_component(dir ${f} DIRECTORY)
    get_filename_component(parent ${dir} NAME)
    get_filename_component(name ${f} NAME)
    configure_file(${f} ${seeds}/${parent}_${name} COPYONLY)
    math(EXPR n_seeds "${n_seeds} + 1")
  endforeach()
endforeach()
if(n_seeds EQUAL 0)
  message(FATAL_ERROR "no seed files match ${SEEDS}")
endif()

set(dict_args "")
if(DICT)
  file(READ ${DICT} dict)
  if(XSD)
    file(READ ${XSD} xsd)
    string(APPEND dict "# from ${XSD}\n")
    foreach(kind element attribute enumeration)
      set(key name)
      if(kind STREQUAL "enumeration")
        set(key value)
      endif()
      string(REGEX MATCHALL "<xs:${kind} ${key}=\"[A-Za-z0-9_]+\"" found "${xsd}")
      list(REMOVE_DUPLICATES found)
      foreach(m ${found})
        string(REGEX REPLACE ".*=\"([A-Za-z0-9_]+)\"" "\\1" word "${m}")
        if(kind STREQUAL "element")
          string(APPEND dict "\"<${word}\"\n\"</${word}>\"\n")
        elseif(kind STREQUAL "attribute")
          string(APPEND dict "\"${word}=\\\"\"\n")
        else()
          string(APPEND dict "\"${word}\"\n")
        endif()
      endforeach()
    endforeach()
  endif()
  get_filename_component(dict_name ${DICT} NAME)
  file(WRITE ${WORK}/${dict_name} "${dict}")
  set(dict_args -dict=${WORK}/${dict_name})
endif()

# FULL_STACKS: unwind every allocation with the slow unwinder.  Gmsh has no
# frame pointers: without it, a leak inside Gmsh often shows no Gmsh frame and
# cannot be told from ours (or suppressed).  It halves the speed, so the case
# fuzzer, which does not reach Gmsh, runs without it.
set(asan strict_string_checks=1:detect_stack_use_after_return=1)
if(FULL_STACKS)
  string(APPEND asan :fast_unwind_on_malloc=0)
endif()
set(ENV{ASAN_OPTIONS} ${asan})
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
if(SUPP)
  set(ENV{LSAN_OPTIONS} "suppressions=${SUPP}:print_suppressions=0")
endif()
set(ENV{TMPDIR} ${WORK}/tmp)

# -close_fd_mask=3: the target's own stdout and stderr (fesim's error messages
# for each bad input) are closed; libFuzzer's and the sanitizers' reports stay.
set(command ${FUZZER} -max_total_time=${TIME} -timeout=${INPUT_TIMEOUT} -rss_limit_mb=${RSS_MB}
            -malloc_limit_mb=${RSS_MB} -close_fd_mask=3 -print_final_stats=1 -error_exitcode=1
            -timeout_exitcode=1 -artifact_prefix=${artifacts}/ ${dict_args} ${corpus} ${seeds})
string(REPLACE ";" " " command_line "${command}")
message("${command_line}")
math(EXPR hard_limit "${TIME} + 3 * ${INPUT_TIMEOUT} + 120")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_FILE ${log} ERROR_FILE ${log}
                TIMEOUT ${hard_limit})
file(READ ${log} out)

if(NOT rc STREQUAL "0" OR NOT out MATCHES "Done [0-9]+ runs in")
  execute_process(COMMAND tail -n 80 ${log})
  file(GLOB found ${artifacts}/*)
  set(report "")
  foreach(f ${found})
    string(APPEND report "  reproducer: ${f}\n  rerun:      ${FUZZER} ${f}\n")
  endforeach()
  if(NOT found)
    set(report "  no reproducer was written (${rc}); the whole log is ${log}\n")
  endif()
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}) after fuzzing from ${n_seeds} seeds:\n"
                      "${report}")
endif()

string(REGEX MATCH "#[0-9]+[ \t]+DONE[^\n]*" done "${out}")
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second\\(s\\)" runs "${out}")
string(REGEX MATCH "stat::peak_rss_mb:[ \t]*[0-9]+" rss "${out}")
message("${n_seeds} seeds; ${runs}; no crash, leak or timeout\n${done}\n${rss}")
