# Messages that quote a long path (about 4000 bytes: a case file, --output, --restart) cut it
# to a readable length (its head, "...", its tail: how much of the head is this test's folder
# depends on where the build is, so only the tail is matched) and still state the reason; the output paths the run would create are
# checked against PATH_MAX and NAME_MAX before anything is written.  Each run must exit 2 with
# one message that matches, shorter than 600 bytes, and create nothing.
#   cmake -DFESIM=... -DSRC=tests/bad_input -DWORK=DIR -P long_paths.cmake
file(REMOVE_RECURSE ${WORK})
string(REPEAT "d" 200 part)
string(REPEAT "${part}/" 19 deep)
set(deep ${WORK}/${deep}case)
file(MAKE_DIRECTORY ${deep})
file(COPY ${SRC}/dt_negative.xml ${SRC}/good.xml ${SRC}/square.geo DESTINATION ${deep})
file(WRITE ${WORK}/afile "a regular file where a directory should be\n")
# The file system's limits, as the messages state them.
foreach(limit NAME_MAX PATH_MAX)
  execute_process(COMMAND getconf ${limit} ${WORK} OUTPUT_VARIABLE ${limit} OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT ${limit} MATCHES "^[0-9]+$")
    message(FATAL_ERROR "getconf ${limit} ${WORK} printed '${${limit}}'")
  endif()
endforeach()

# expect(NAME REGEX ARGS...): fesim ARGS exits 2 with one short message matching REGEX.
function(expect name regex)
  execute_process(COMMAND ${FESIM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(LENGTH "${err}" length)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^fesim: error: [^\n]*\n$" OR NOT err MATCHES "${regex}"
     OR length GREATER 600)
    file(REAL_PATH ${WORK} real)
    message(FATAL_ERROR "${name}: exit ${rc}, ${length} bytes on stderr:\n${err}\nexpected exit 2 and one message matching ${regex}\n(${WORK} is ${real}; NAME_MAX ${NAME_MAX}, PATH_MAX ${PATH_MAX})")
  endif()
  message("${name}: ${err}")
endfunction()

expect(case_file "^fesim: error: '[^']*\\.\\.\\.d+/case/dt_negative\\.xml' \\([0-9]+ characters\\):6: <time dt=\"-1\">: dt must be > 0\n$"
       --check ${deep}/dt_negative.xml)
expect(case_file_run "\\([0-9]+ characters\\):6: <time dt=\"-1\">: dt must be > 0\n$"
       --output ${WORK}/out ${deep}/dt_negative.xml)
string(REPEAT "a" 250 a250)
string(REPEAT "${a250}/" 19 long_dir)
string(APPEND long_dir "${a250}")
expect(output_path_max "output path '[^']*\\.\\.\\.a+/bad\\.stat' \\(5[0-9][0-9][0-9] characters\\) is too long: 5[0-9][0-9][0-9] bytes, where the file system allows ${PATH_MAX} \\(PATH_MAX, the terminating zero included\\); expected a shorter output directory or <name> \\('[^']*/case/good\\.xml' \\([0-9]+ characters\\)\\)\n$"
       --output ${WORK}/out/${long_dir} ${deep}/good.xml)
string(REPEAT "b" 300 b300)
expect(output_name_max "output directory '[^']*' \\([0-9]+ characters\\): its part 'b+\\.\\.\\.b+' \\(300 characters\\) is too long: 300 bytes, where the file system allows ${NAME_MAX} \\(NAME_MAX\\); expected shorter directory names"
       --output ${WORK}/out/${b300} ${deep}/good.xml)
expect(restart "cannot open checkpoint '[^']*\\.\\.\\.d+/case/missing_checkpoint_000004\\.bin' \\([0-9]+ characters\\): No such file or directory"
       --output ${WORK}/out --restart ${deep}/missing_checkpoint_000004.bin ${deep}/good.xml)
string(REPEAT "c" 200 c200)
string(REPEAT "${c200}/" 19 under_file)
expect(output_under_file "--output '[^']*\\.\\.\\.c+/out' \\([0-9]+ characters\\) is not a directory: '[^']*/afile' is a file; expected a directory, or a path where one can be created"
       --output ${WORK}/afile/${under_file}out ${deep}/good.xml)
# A case reached through a link whose target makes the resolved path pass PATH_MAX: the run
# goes on to the next check (the lock names the case by its path as written).
string(REPEAT "e" 250 e250)
file(MAKE_DIRECTORY ${WORK}/${e250}/${e250})
file(CREATE_LINK ${WORK}/${e250}/${e250} ${WORK}/link SYMBOLIC)
string(REPEAT "${part}/" 18 below)
set(linked ${WORK}/link/${below}case)
file(MAKE_DIRECTORY ${linked})
file(COPY ${SRC}/good.xml ${SRC}/square.geo DESTINATION ${linked})
expect(case_behind_link "output directory '[^']*' \\([0-9]+ characters\\): its part 'b+\\.\\.\\.b+' \\(300 characters\\) is too long"
       --output ${WORK}/out/${b300} ${linked}/good.xml)
if(EXISTS ${WORK}/out)
  message(FATAL_ERROR "${WORK}/out was created")
endif()
file(REMOVE_RECURSE ${WORK})
