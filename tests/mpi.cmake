# fesim on several processes (label mpi; registered where fesim is built with MPI): failures
# agree, every process stopping with one exit code and one message (docs/case-format.md,
# "Messages and exit codes").  The runs that compare several processes with one are the
# mpi.case.* checks of cases.cmake.
if(NOT FESIM_HAVE_MPI)
  return()
endif()

set(FE_MPI_OUT ${CMAKE_BINARY_DIR}/mpi)
set(FE_MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1")

# fe_mpi_exit(NAME PROCESSES CODE REGEX ARGS...): fesim ARGS on PROCESSES processes exits with
# CODE and prints one error matching REGEX, nothing else (mpirun --quiet: none of its own).
function(fe_mpi_exit name processes code regex)
  set(args ${MPIEXEC_NUMPROC_FLAG} ${processes} --oversubscribe --quiet $<TARGET_FILE:fesim>
           ${ARGN})
  add_test(NAME mpi.exit.${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=${MPIEXEC_EXECUTABLE}" "-DARGS=${args}"
                   -DCODE=${code} "-DREGEX=${regex}" "-DSKIP_IF_OK=a GPU for each process"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(mpi.exit.${name} PROPERTIES LABELS mpi ENVIRONMENT "${FE_MPI_ENV}")
endfunction()

# bad input: every process reads the case and finds the error; process 0 says it
fe_mpi_exit(malformed 3 2 [=[malformed\.xml:17: malformed XML: opening and ending tag mismatch]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/malformed.xml)
fe_mpi_exit(bad_mesh 2 2 [=[data/mesh/degenerate\.msh: element 41 \(triangle of surface 1\) is degenerate]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/mesh_degenerate.xml)
# velocity files that do not match the mesh: process 0 reads them against the whole mesh, its
# error every process's
fe_mpi_exit(velocity_moved 2 2 [=[data/velocity/grid8_moved\.vtu: point 1 at \(0\.55, 0\) is 0\.05 from the nearest node of the mesh [^ ]*grid8\.msh]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/velocity_moved.xml)
fe_mpi_exit(velocity_count 3 2 [=[data/velocity/grid8\.vtu: 9 points; expected the [0-9]+ nodes of the mesh [^ ]*square\.geo]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/bad_input/velocity_count.xml)
# more processes than cells: process 0 cuts the mesh (METIS, once) and says why it cannot; every
# process stops with its exit code
fe_mpi_exit(more_processes_than_cells 7 2 [=[the mesh [^ ]*kuhn\.msh has 6 cells: it cannot be cut into 7 parts; expected 1 to 6 processes]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/cases/data/six_cells.xml)
# a part that would own no node (here of a periodic mesh: its cells' nodes copies of unknowns
# the lower part owns) is refused the same way, not left out of the others' collectives
fe_mpi_exit(part_without_nodes 2 2 [=[the mesh [^ ]*periodic_41\.msh \(8 cells\) cut into 2 parts leaves part 1 without a node of its own]=]
            --check ${CMAKE_CURRENT_SOURCE_DIR}/cases/data/eight_periodic_cells.xml)
# no GPU for either process: every process stops, process 0 says why, once (skipped with GPUs)
fe_mpi_exit(cuda 2 4 [=[backend 'cuda' was asked for, but (this fesim was built without|no usable GPU)]=]
            --backend cuda --check ${PROJECT_SOURCE_DIR}/cases/diffusion_gaussian/case.xml)
set_tests_properties(mpi.exit.cuda PROPERTIES SKIP_REGULAR_EXPRESSION "FESIM_SKIP")
# a solver that fails: every process sees the same reduced residuals and stops at the same step,
# the last good state kept in a checkpoint that process 0 writes
fe_mpi_exit(cg 2 3 [=[did not converge at step 1]=]
            --force --output ${FE_MPI_OUT}/cg ${CMAKE_CURRENT_SOURCE_DIR}/cases/data/max_iterations_1.xml)
# an output directory process 0 cannot create: its error, every process stopped (MPI_Abort)
fe_mpi_exit(resource 2 4 [=[cannot create the output directory '/proc/fesim-none']=]
            --output /proc/fesim-none ${PROJECT_SOURCE_DIR}/cases/diffusion_gaussian/case.xml)
