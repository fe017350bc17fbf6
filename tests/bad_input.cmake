# Bad input (tests/bad_input/*.xml): fesim must exit with 2 and print one
# message naming the file, the line or element, and what was expected; and it
# must find the error before it writes any output.  Each case runs twice:
#   bad_input.NAME      fesim --check NAME.xml                      (expect_exit.cmake)
#   bad_input.NAME.run  fesim --output DIR NAME.xml, a real run:    (expect_untouched.cmake)
#                       the same message, and DIR left as it was (absent, or
#                       holding an earlier run's files, byte for byte)
# Meshes are referenced relative to the case file (../data/mesh/*.msh,
# meshes/*); square.geo here is the mesh of the case-file errors.
set(FE_BAD_INPUT_DIR ${CMAKE_CURRENT_SOURCE_DIR}/bad_input)
set(FE_BAD_INPUT_OUT ${CMAKE_CURRENT_BINARY_DIR}/bad_input)

# fe_bad_run(TEST CASE REGEX [ARGS...]): the real run, with ARGS before the case.
function(fe_bad_run test case regex)
  add_test(NAME bad_input.${test}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DCASE=${FE_BAD_INPUT_DIR}/${case}.xml"
                   "-DOUT=${FE_BAD_INPUT_OUT}/${test}" "-DARGS=${ARGN}" -DCODE=2 "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_untouched.cmake)
  set_tests_properties(bad_input.${test} PROPERTIES LABELS bad_input)
endfunction()

function(fe_bad_input name regex)
  add_test(NAME bad_input.${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>"
                   "-DARGS=--check;${FE_BAD_INPUT_DIR}/${name}.xml" -DCODE=2 "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(bad_input.${name} PROPERTIES LABELS bad_input)
  fe_bad_run(${name}.run ${name} "${regex}")
endfunction()

# the case file itself
fe_bad_input(no_such_case [=[cannot open case file '[^']*no_such_case\.xml': No such file or directory]=])
fe_bad_input(malformed [=[malformed\.xml:17: malformed XML: opening and ending tag mismatch]=])
fe_bad_input(empty [=[empty\.xml:1: malformed XML: document is empty]=])
fe_bad_input(binary [=[binary\.xml:1: malformed XML: ]=])
# the schema
fe_bad_input(wrong_root [=[wrong_root\.xml:2: <case>: not a fesim case file]=])
fe_bad_input(version2 [=[version2\.xml:2: <fesim version="2">: unsupported case format version]=])
fe_bad_input(unknown_element [=[unknown_element\.xml:16: <gpu>: unexpected element in <fesim>]=])
fe_bad_input(unknown_attribute [=[unknown_attribute\.xml:6: <time step="3">: the attribute 'step' is not allowed]=])
fe_bad_input(missing_time [=[missing_time\.xml:2: <fesim>: missing <time>]=])
fe_bad_input(velocity_missing_y [=[velocity_missing_y\.xml:7: <velocity>: missing <y>]=])
fe_bad_input(dt_not_number [=[dt_not_number\.xml:6: <time dt="abc">: 'abc' is not a number]=])
fe_bad_input(unknown_strategy [=[unknown_strategy\.xml:14: <assembly strategy="csr">: the value 'csr' is not one of {'addto', 'lma', 'matfree', 'auto'}]=])
fe_bad_input(unknown_backend [=[unknown_backend\.xml:15: <backend>: the value 'gpu' is not one of {'cpu', 'cuda', 'auto'}]=])
fe_bad_input(boundary_two_conditions [=[boundary_two_conditions\.xml:10: <neumann>: unexpected element in <boundary>]=])
# values
fe_bad_input(dt_negative [=[dt_negative\.xml:6: <time dt="-1">: dt must be > 0]=])
fe_bad_input(dt_zero [=[dt_zero\.xml:6: <time dt="0">: dt must be > 0]=])
fe_bad_input(end_before_start [=[end_before_start\.xml:6: <time end="1">: end must be > start]=])
fe_bad_input(end_equals_start [=[end_equals_start\.xml:6: <time end="1">: end must be > start \(start="1"\)]=])
fe_bad_input(time_not_finite [=[time_not_finite\.xml:6: <time end="INF">: end must be a finite number]=])
fe_bad_input(theta_too_large [=[theta_too_large\.xml:12: <scheme theta="1\.5">: theta must be in \[0, 1\]]=])
fe_bad_input(theta_negative [=[theta_negative\.xml:12: <scheme theta="-0\.5">: theta must be in \[0, 1\]]=])
fe_bad_input(rtol_negative [=[rtol_negative\.xml:13: <solver rtol="-1e-10">: rtol must be >= 0]=])
fe_bad_input(max_iterations_not_integer [=[max_iterations_not_integer\.xml:13: <solver max_iterations="2\.5">: '2\.5' is not an integer]=])
fe_bad_input(param_not_number [=[param_not_number\.xml:5: <param>: '1e-3x' is not a number]=])
fe_bad_input(mesh_size_negative [=[mesh_size_negative\.xml:4: <mesh size="-0\.1">: size must be > 0]=])
fe_bad_input(max_iterations_zero [=[max_iterations_zero\.xml:13: <solver max_iterations="0">: max_iterations must be > 0]=])
fe_bad_input(output_every_zero [=[output_every_zero\.xml:16: <output every="0">: every must be > 0]=])
fe_bad_input(output_every_negative [=[output_every_negative\.xml:16: <output every="-5">: every must be > 0]=])
fe_bad_input(checkpoint_every_zero [=[checkpoint_every_zero\.xml:17: <checkpoint every="0">: every must be > 0]=])
fe_bad_input(bad_name [=[bad_name\.xml:3: <name>: 'bad/name' is not a valid output base name]=])
# the mesh: the file
fe_bad_input(missing_mesh [=[missing_mesh\.xml:4: <mesh file="no_such_mesh\.msh">: mesh file '[^']*no_such_mesh\.msh' not found]=])
fe_bad_input(mesh_unknown_type [=[meshes/square\.vtk': unknown mesh file type '\.vtk'; expected a Gmsh mesh \(\.msh, format 2\.2 or 4\.1\) or a Gmsh geometry \(\.geo\)]=])
fe_bad_input(mesh_empty [=[data/mesh/empty\.msh: empty file; expected a Gmsh mesh]=])
fe_bad_input(mesh_garbage [=[data/mesh/garbage\.msh: not a Gmsh mesh: it starts with 'this is not a mesh', expected '\$MeshFormat']=])
fe_bad_input(mesh_binary [=[meshes/binary\.msh: not a Gmsh mesh: it starts with binary data, expected '\$MeshFormat']=])
# Malformed .msh files on which Gmsh 4.8 itself crashes (found by fuzz.mesh): Gmsh runs in
# the meshing process (io/mesher.h), whose crash is reported as malformed input, with the
# signal and the C library's last words
# (Its element blocks overrun the heap in Gmsh: glibc aborts, while under AddressSanitizer,
# whose allocator does not check uninstrumented code, Gmsh reads on and our checks answer.)
fe_bad_input(mesh_crash_elements_count [=[findings/gmsh_elements_count\.msh: (Gmsh crashed reading it \([A-Za-z0-9 ]+(: '[^']*')?\): the file is malformed; expected a complete Gmsh mesh|the mesh has no cells)]=])
fe_bad_input(mesh_crash_nodes_count [=[findings/gmsh_nodes_count\.msh: Gmsh crashed reading it \([A-Za-z0-9 ]+(: '[^']*')?\): the file is malformed; expected a complete Gmsh mesh]=])
fe_bad_input(mesh_crash_physical_name_dim [=[findings/gmsh_physical_name_dim\.msh: Gmsh crashed reading it \([A-Za-z0-9 ]+(: '[^']*')?\): the file is malformed; expected a complete Gmsh mesh]=])
fe_bad_input(mesh_truncated [=[data/mesh/truncated\.msh: Gmsh could not read it \(Could not read nodes\); expected a complete Gmsh mesh \(format 2\.2 or 4\.1, ASCII or binary\)]=])
fe_bad_input(mesh_geo_syntax [=[data/mesh/bad\.geo: Gmsh could not read it \('[^']*bad\.geo', line 3: syntax error \(0\.1\)\); expected a valid Gmsh geometry script]=])
# the mesh: its elements
fe_bad_input(mesh_quad [=[data/mesh/quad\.msh: element 41 is a 'Quadrilateral 4'; fesim reads only 3-node triangles \('Triangle 3'\)]=])
fe_bad_input(mesh_order2 [=[data/mesh/order2\.msh: element 41 is a 'Triangle 6'; fesim reads only 3-node triangles \('Triangle 3'\)]=])
fe_bad_input(mesh_lines [=[data/mesh/lines\.msh: the mesh has no cells: its highest element dimension is 1, expected triangles \(2D\) or tetrahedra \(3D\)]=])
fe_bad_input(mesh_mixed [=[data/mesh/mixed\.msh: mixed dimensions: element 1 of physical group 1 is not a face of the tetrahedra \(its node 12 belongs to no tetrahedron\); expected a 3D mesh: tetrahedra, and triangles on their faces]=])
fe_bad_input(mesh_tilted [=[data/mesh/tilted\.msh: a 2D mesh must lie in a plane z = const: node [0-9]+ has z = ]=])
fe_bad_input(mesh_degenerate [=[data/mesh/degenerate\.msh: element 41 \(triangle of surface 1\) is degenerate: its area is 0 \(longest edge 1\); expected cells of non-zero area]=])
fe_bad_input(mesh_inverted [=[data/mesh/fold\.msh: element 18 \(triangle of surface 2\) is inverted: it and element 17 lie on the same side of their shared edge, so they overlap; 1 of the 8 triangles is inverted; expected cells that do not overlap]=])
fe_bad_input(mesh_inverted2 [=[data/mesh/fold2\.msh: element 16 \(triangle of surface 2\) is inverted: it and element 11 lie on the same side of their shared edge, so they overlap; 2 of the 8 triangles are inverted; expected cells that do not overlap]=])
fe_bad_input(mesh_inverted_3d [=[data/mesh/fold_3d\.msh: element 13 \(tetrahedron of volume 1\) is inverted: it and element 14 lie on the same side of their shared face, so they overlap; 1 of the 6 tetrahedra is inverted; expected cells that do not overlap]=])
fe_bad_input(mesh_overlap [=[data/mesh/overlap\.msh: elements 17, 18 and 19 share one edge, so they overlap; expected at most two cells on each edge]=])
# the tracer
fe_bad_input(duplicate_initial [=[duplicate_initial\.xml:10: <initial>: given twice \(first at line 8\)]=])
fe_bad_input(missing_initial [=[missing_initial\.xml:7: <tracer>: missing <initial>]=])
fe_bad_input(duplicate_group [=[duplicate_group\.xml:11: <boundary physical="right left">: physical group 'left' already has a condition at line 10]=])
fe_bad_input(diffusivity_incomplete [=[diffusivity_incomplete\.xml:9: <diffusivity>: incomplete tensor: found xx yy]=])
fe_bad_input(diffusivity_both [=[diffusivity_both\.xml:9: <diffusivity>: both a scalar expression and tensor components]=])
fe_bad_input(diffusivity_tensor_3d_on_2d [=[diffusivity_tensor_3d_on_2d\.xml:9: <diffusivity>: 6 tensor components for a 2D mesh; expected a scalar or the 3 components xx xy yy]=])
# boundaries against the mesh's physical groups
fe_bad_input(boundary_unknown_name [=[boundary_unknown_name\.xml:10: <boundary physical="wall">: the mesh [^ ]*square\.geo has no boundary physical group 'wall'; expected a group of curves, one of: bottom \(1\), right \(2\), top \(3\), left \(4\)]=])
fe_bad_input(boundary_unknown_number [=[boundary_unknown_number\.xml:10: <boundary physical="4 7">: the mesh [^ ]*square\.geo has no boundary physical group '7'; expected a group of curves, one of: bottom \(1\), right \(2\), top \(3\), left \(4\)]=])
fe_bad_input(boundary_domain_group [=[boundary_domain_group\.xml:10: <boundary physical="domain">: the mesh [^ ]*square\.geo has no boundary physical group 'domain' \('domain' is a group of surfaces, a region of the domain\); expected a group of curves]=])
fe_bad_input(boundary_same_group_by_number [=[boundary_same_group_by_number\.xml:11: <boundary physical="4">: '4' is physical group 4, which already has a condition at line 10; a group may appear in one <boundary> only]=])
# the velocity against the mesh's dimension
fe_bad_input(velocity_z_2d [=[velocity_z_2d\.xml:7: <velocity>: 3 components for the 2D mesh [^ ]*square\.geo; expected x and y]=])
fe_bad_input(velocity_missing_z_3d [=[velocity_missing_z_3d\.xml:7: <velocity>: 2 components for the 3D mesh [^ ]*cube_22\.msh; expected x, y and z]=])
# the diffusivity on the mesh: >= 0, or a positive semi-definite tensor
fe_bad_input(diffusivity_negative [=[diffusivity_negative\.xml:9: <diffusivity>: '-k' is -0\.1 at the centroid \(x, y\) = \([-0-9.e]+, [-0-9.e]+\) of element [0-9]+, t = 0; expected a diffusivity >= 0]=])
fe_bad_input(diffusivity_negative_somewhere [=[diffusivity_negative_somewhere\.xml:9: <diffusivity>: 'x - 0\.5' is -[0-9.e]+ at the centroid \(x, y\) = \(0\.[0-4][0-9.e-]*, [-0-9.e]+\) of element [0-9]+, t = 0; expected a diffusivity >= 0]=])
fe_bad_input(diffusivity_tensor_negative_2d [=[diffusivity_tensor_negative_2d\.xml:9: <diffusivity>: the tensor \(xx xy yy\) = \(-1 0 1\) at the centroid \(x, y\) = \([^)]*\) of element [0-9]+, t = 0, is not positive semi-definite: xx = -1 < 0; expected a symmetric positive semi-definite tensor]=])
fe_bad_input(diffusivity_tensor_indefinite_2d [=[diffusivity_tensor_indefinite_2d\.xml:9: <diffusivity>: the tensor \(xx xy yy\) = \(1 2 1\) at the centroid \(x, y\) = \([^)]*\) of element [0-9]+, t = 0, is not positive semi-definite: xx yy - xy\^2 = -3 < 0; expected a symmetric positive semi-definite tensor]=])
fe_bad_input(diffusivity_tensor_negative_3d [=[diffusivity_tensor_negative_3d\.xml:9: <diffusivity>: the tensor \(xx xy xz yy yz zz\) = \(1 0 0 1 0 -1\) at the centroid \(x, y, z\) = \([^)]*\) of element [0-9]+, t = 0, is not positive semi-definite: zz = -1 < 0; expected a symmetric positive semi-definite tensor]=])
fe_bad_input(diffusivity_tensor_indefinite_3d [=[diffusivity_tensor_indefinite_3d\.xml:9: <diffusivity>: the tensor \(xx xy xz yy yz zz\) = \(1 0\.9 0 1 0\.9 1\) at the centroid \(x, y, z\) = \([^)]*\) of element [0-9]+, t = 0, is not positive semi-definite: its determinant is -0\.62 < 0; expected a symmetric positive semi-definite tensor]=])
# parameters and expressions
fe_bad_input(duplicate_param [=[duplicate_param\.xml:6: <param name="k">: parameter 'k' is already defined at line 5]=])
fe_bad_input(param_shadows_pi [=[param_shadows_pi\.xml:6: <param name="pi">: 'pi' is a reserved name]=])
fe_bad_input(expr_syntax [=[expr_syntax\.xml:8: <initial>: cannot parse expression '2x \+ y'; expected ]=])
fe_bad_input(expr_unknown_variable [=[expr_unknown_variable\.xml:8: <initial>: unknown variable 'w' in expression 'x\*w']=])
fe_bad_input(expr_unknown_function [=[expr_unknown_function\.xml:8: <initial>: unknown function 'cot' in expression 'cot\(x\)']=])
fe_bad_input(expr_bad_character [=[expr_bad_character\.xml:8: <initial>: unexpected character '\[' in expression]=])
# expressions that are not finite somewhere on the mesh at time@start
fe_bad_input(nonfinite_initial [=[nonfinite_initial\.xml:8: <initial>: expression 'log\(x\)' is -inf at the node \(x, y\) = \(0, [0-9.e-]+\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_source [=[nonfinite_source\.xml:10: <source>: expression '1/\(x - 0\.5\)' is inf at the node \(x, y\) = \(0\.5, [0-9.e-]+\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_diffusivity [=[nonfinite_diffusivity\.xml:9: <diffusivity>: expression 'sqrt\(x - 2\)' is nan at the centroid \(x, y\) = \([^)]*\) of element [0-9]+, t = 0; expected a finite value]=])
fe_bad_input(nonfinite_velocity [=[nonfinite_velocity\.xml:7: <velocity><x>: expression '1/y' is inf at the node \(x, y\) = \([0-9.e-]+, 0\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_dirichlet [=[nonfinite_dirichlet\.xml:10: <dirichlet>: expression '1/x' is inf at the node \(x, y\) = \(0, [0-9.e-]+\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_neumann [=[nonfinite_neumann\.xml:10: <neumann>: expression 'log\(y\)' is -inf at the node \(x, y\) = \([0-9.e-]+, 0\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_exact [=[nonfinite_exact\.xml:11: <exact>: expression 'exp\(1000\*x\)' is inf at the node \(x, y\) = \([0-9.e-]+, [0-9.e-]+\), t = 0; expected a finite value]=])

# The command line, with the valid good.xml (real runs only: --check neither
# reads a checkpoint nor opens the output directory).
fe_bad_run(restart_missing good [=[cannot open checkpoint '[^']*no_such_checkpoint\.bin': No such file or directory]=]
           --restart ${FE_BAD_INPUT_DIR}/no_such_checkpoint.bin)
fe_bad_run(restart_garbage good [=['[^']*garbage_checkpoint\.bin' is not a complete fesim checkpoint; expected a file written by fesim]=]
           --restart ${FE_BAD_INPUT_DIR}/garbage_checkpoint.bin)
# --output naming a regular file: exit 2 before anything is set up (app/run.c)
add_test(NAME bad_input.output_is_file
         COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DCASE=${FE_BAD_INPUT_DIR}/good.xml"
                 "-DOUT=${FE_BAD_INPUT_OUT}/output_is_file" -DOUT_IS_FILE=1 -DCODE=2
                 [=[-DREGEX=--output '[^']*output_is_file' is not a directory: it is a file; expected a directory, or a path where one can be created]=]
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_untouched.cmake)
set_tests_properties(bad_input.output_is_file PROPERTIES LABELS bad_input)

# .geo scripts are programs (io/geo_check.h): a command that reaches outside the geometry is
# refused before Gmsh sees the script, naming its line (tests/data/geo/README.md)
set(FE_GEO_REFUSED [=[: refused; expected a script that only builds geometry \(points, curves, surfaces, volumes, physical groups, Geometry\., Mesh\. and General\. options set to numbers\)]=])
fe_bad_input(geo_systemcall "data/geo/refused_systemcall\\.geo:3: 'SystemCall' runs a shell command${FE_GEO_REFUSED}")
fe_bad_input(geo_printf "data/geo/refused_printf\\.geo:3: 'Printf' writes into a file \\('>'\\)${FE_GEO_REFUSED}")
fe_bad_input(geo_save "data/geo/refused_save\\.geo:3: 'Save' writes a file${FE_GEO_REFUSED}")
fe_bad_input(geo_include "data/geo/refused_include\\.geo:3: 'Include' reads another file${FE_GEO_REFUSED}")
fe_bad_input(geo_merge "data/geo/refused_merge\\.geo:3: 'Merge' reads another file${FE_GEO_REFUSED}")
fe_bad_input(geo_exit "data/geo/refused_exit\\.geo:3: 'Exit' ends Gmsh${FE_GEO_REFUSED}")
fe_bad_input(geo_getenv "data/geo/refused_getenv\\.geo:3: 'GetEnv' reads the environment${FE_GEO_REFUSED}")
fe_bad_input(geo_solver "data/geo/refused_solver\\.geo:3: 'Solver' options are not for meshing${FE_GEO_REFUSED}")
fe_bad_input(geo_string_option "data/geo/refused_string_option\\.geo:3: 'General\\.OptionsFileName' is set to a string \\(string options name files and programs\\)${FE_GEO_REFUSED}")
fe_bad_input(geo_mesh "data/geo/refused_mesh\\.geo:3: 'Mesh' meshes in the script \\(fesim meshes the geometry itself\\)${FE_GEO_REFUSED}")
fe_bad_input(geo_string [=[data/geo/refused_string\.geo:18: a string that starts here never ends; expected a closing "]=])
# meshing within limits: the estimate after the curves are meshed, before the surfaces
fe_bad_input(geo_too_fine [=[data/geo/square\.geo: meshing it at <mesh size="1e-05"> would make about 2\.[0-9]e\+10 triangles \(an area of about 1 at edges of about 1e-05\), more than the limit of 100000000 cells; raise the limit with --max-cells, or mesh it coarser]=])

# Mesh semantics (meshes written by tests/data/mesh/make_mesh_semantics.py; what fesim runs
# with a warning is in tests/cases.cmake, fe_warning): a node tag given twice at different
# coordinates, or where they cannot be compared (a binary file)
fe_bad_input(mesh_duplicate_node [=[data/mesh/dup_diff_22\.msh: node 5 is given twice, at \(0\.5, 0\.5, 0\) and at \(0\.7, 0\.5, 0\); expected each node tag once \(Gmsh would keep one of the two\)]=])
fe_bad_input(mesh_duplicate_node_41 [=[data/mesh/dup_diff_41\.msh: node 5 is given twice, at \(0\.5, 0\.5, 0\) and at \(0\.5, 0\.5000001, 0\); expected each node tag once \(Gmsh would keep one of the two\)]=])
fe_bad_input(mesh_duplicate_node_binary [=[data/mesh/dup_binary_22\.msh: node 5 is given twice, and fesim could not compare the coordinates of the copies \(it is a binary file\); expected each node tag once]=])
# a physical name given to two boundary groups, named in a <boundary> (by number it runs)
fe_bad_input(boundary_shared_name [=[boundary_shared_name\.xml:10: <boundary physical="wall">: the mesh [^ ]*names_shared\.msh gives the physical name 'wall' to 2 groups of curves, 1 and 4; expected a name of one group: refer to the group by its number, e\.g\. physical="1"]=])
# conditions on facets that are not on the boundary: Neumann inside the domain, any on no cell
fe_bad_input(boundary_neumann_inside [=[boundary_neumann_inside\.xml:10: <boundary physical="left cut">: a Neumann condition inside the domain: element 9 of physical group 'cut' \(5\) is an edge shared by two triangles of the mesh [^ ]*internal\.msh \(and so is 1 other edge of the group\); expected edges on the boundary of the domain: a flux through the inside of the domain is not a boundary condition]=])
fe_bad_input(boundary_neumann_inside_3d [=[boundary_neumann_inside_3d\.xml:10: <boundary physical="inside">: a Neumann condition inside the domain: element 1 of physical group 'inside' \(1\) is a face shared by two tetrahedra of the mesh [^ ]*internal_3d\.msh; expected faces on the boundary of the domain]=])
fe_bad_input(boundary_not_facet [=[boundary_not_facet\.xml:10: <boundary physical="stray">: element 11 of physical group 'stray' \(6\) is not an edge of any triangle of the mesh [^ ]*internal\.msh; expected edges of the triangles, on the boundary of the domain]=])
# separate pieces (cells connected through facets) that overlap
fe_bad_input(mesh_pieces_overlap [=[data/mesh/pieces_overlap\.msh: element 10 \(triangle of surface 1\) and element 13 \(triangle of surface 2\) overlap, and they lie in separate pieces of the mesh \(pieces that share no edge; the mesh has 2\); expected pieces that do not overlap]=])
fe_bad_input(mesh_pieces_overlap_3d [=[data/mesh/pieces_overlap_3d\.msh: element 6 \(tetrahedron of volume 1\) and element 12 \(tetrahedron of volume 2\) overlap, and they lie in separate pieces of the mesh \(pieces that share no face; the mesh has 2\); expected pieces that do not overlap]=])
