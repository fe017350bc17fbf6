# Our VTK output read by real clients: VTK's own legacy reader (io.vtk_reader*) and ParaView
# (io.paraview*), on the dumps test_vtk writes into the build tree (fixture fe_vtk_dumps).
set(FE_VTK_DUMPS ${CMAKE_CURRENT_BINARY_DIR}/io_vtk)
set(FE_TEST_TOOLS ${CMAKE_CURRENT_SOURCE_DIR}/tools)

add_test(NAME io.vtk_write COMMAND test_vtk ${FE_VTK_DUMPS})
set_tests_properties(io.vtk_write PROPERTIES LABELS unit FIXTURES_SETUP fe_vtk_dumps)

# tri and tet: the hand-made meshes; grid2d and grid3d: grids that cross the writer's buffer.
foreach(dump_case tri tet grid2d grid3d)
  set(name io.vtk_reader_${dump_case})
  if(dump_case STREQUAL "tri")
    set(name io.vtk_reader)
  endif()
  add_test(NAME ${name}
           COMMAND ${FE_SYSTEM_PYTHON} ${FE_TEST_TOOLS}/check_vtk.py ${FE_VTK_DUMPS} ${dump_case}
                   tracer velocity)
  set_tests_properties(${name} PROPERTIES LABELS unit FIXTURES_REQUIRED fe_vtk_dumps)
endforeach()

# tests/tools/check_paraview.py --launch runs itself under xvfb-run -a pvbatch, exits 77 (skipped, with the
# reason) when either is missing, and tries again when pvbatch could not connect to Xvfb.
# Under load (ctest -j above the core count) Xvfb connections fail often: these run alone.
foreach(dump_case grid2d grid3d tri)
  set(name io.paraview_${dump_case})
  if(dump_case STREQUAL "grid2d")
    set(name io.paraview)
  endif()
  add_test(NAME ${name}
           COMMAND ${FE_SYSTEM_PYTHON} ${FE_TEST_TOOLS}/check_paraview.py --launch
                   ${FE_VTK_DUMPS}/${dump_case}.vtk.series ${FE_VTK_DUMPS}/${dump_case}_tracer.png
                   tracer velocity)
  set_tests_properties(${name} PROPERTIES LABELS paraview SKIP_RETURN_CODE 77
                       FIXTURES_REQUIRED fe_vtk_dumps RUN_SERIAL TRUE)
endforeach()

# tools/statplot.py on stat and probe CSV files the test writes, good and bad; exits 77 (skipped)
# without matplotlib.
add_test(NAME io.statplot
         COMMAND ${FE_SYSTEM_PYTHON} ${FE_TEST_TOOLS}/check_statplot.py
                 ${PROJECT_SOURCE_DIR}/tools/statplot.py)
set_tests_properties(io.statplot PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
