# Bad input (tests/bad_input/*.xml): fesim must exit with 2 and print one
# message naming the file, the line or element, and what was expected; and it
# must find the error before it writes any output.  Each case runs twice:
#   bad_input.NAME      fesim --check NAME.xml                      (tests/cases/expect_exit.cmake)
#   bad_input.NAME.run  fesim --output DIR NAME.xml, a real run:    (tests/cases/expect_untouched.cmake)
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

# fe_bad_input(NAME REGEX [ARGS...]): NAME.xml with --check and in a real run, ARGS before it.
function(fe_bad_input name regex)
  set(args --check ${ARGN} ${FE_BAD_INPUT_DIR}/${name}.xml)
  add_test(NAME bad_input.${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DARGS=${args}" -DCODE=2
                   "-DREGEX=${regex}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(bad_input.${name} PROPERTIES LABELS bad_input)
  fe_bad_run(${name}.run ${name} "${regex}" ${ARGN})
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
fe_bad_input(time_twice [=[time_twice\.xml:10: <time>: given twice \(first at line 5\); a case has one <time> \(only <tracer> repeats\)]=])
fe_bad_input(velocity_missing_y [=[velocity_missing_y\.xml:7: <velocity>: missing <y>]=])
fe_bad_input(dt_not_number [=[dt_not_number\.xml:6: <time dt="abc">: 'abc' is not a number]=])
fe_bad_input(unknown_stabilisation [=[unknown_stabilisation\.xml:12: <scheme stabilisation="upwind">: the value 'upwind' is not one of {'none', 'fct', 'supg'}]=])
fe_bad_input(fct_with_theta [=[fct_with_theta\.xml:12: <scheme>: stabilisation 'fct' with advection 'theta': flux correction limits explicit steps; expected advection 'rk4' with fct]=])
fe_bad_input(unknown_loads [=[unknown_loads\.xml:12: <scheme loads="exact">: the value 'exact' is not one of {'quadrature', 'interpolated'}]=])
fe_bad_input(nu_scale_negative [=[nu_scale_negative\.xml:12: <scheme nu_scale="-1">: nu_scale must be a finite number >= 0]=])
fe_bad_input(conservative_advection_range [=[conservative_advection_range\.xml:12: <scheme conservative_advection="1\.5">: found 1\.5; expected beta in \[0, 1\]: 1 the conservative form div\(u T\), 0 the non-conservative u \. grad T \(Fluidity's conservative_advection\)]=])
fe_bad_input(unknown_strategy [=[unknown_strategy\.xml:14: <assembly strategy="csr">: the value 'csr' is not one of {'addto', 'lma', 'matfree', 'auto'}]=])
fe_bad_input(unknown_backend [=[unknown_backend\.xml:15: <backend>: the value 'gpu' is not one of {'cpu', 'cuda', 'auto'}]=])
fe_bad_input(boundary_two_conditions [=[boundary_two_conditions\.xml:10: <neumann>: unexpected element in <boundary>]=])
# values
fe_bad_input(dt_negative [=[dt_negative\.xml:6: <time dt="-1">: dt must be > 0]=])
fe_bad_input(absorption_negative [=[absorption_negative\.xml:10: <absorption>: 'x - 0\.5' is -0\.469498 at the centroid \(x, y\) = \(0\.0305021, 0\.927831\) of element 146, t = 0; expected a rate >= 0]=])
fe_bad_input(dt_zero [=[dt_zero\.xml:6: <time dt="0">: dt must be > 0]=])
# the rule of the time steps: a fixed dt, or cfl with dt_max; dumps every N steps or by period
fe_bad_input(cfl_and_dt [=[cfl_and_dt\.xml:6: <time cfl="0\.5">: found dt and cfl; expected one of them: dt for steps of a fixed length, or cfl with dt_max for steps from the Courant number]=])
fe_bad_input(cfl_without_dt_max [=[cfl_without_dt_max\.xml:6: <time cfl="0\.5">: found cfl without dt_max; expected dt_max="\.\.\." too: the longest step]=])
fe_bad_input(dt_max_without_cfl [=[dt_max_without_cfl\.xml:6: <time dt_max="0\.2">: found dt_max without cfl; expected cfl="\.\.\." with it]=])
fe_bad_input(time_no_step [=[time_no_step\.xml:6: <time>: found neither dt nor cfl; expected dt="\.\.\." \(steps of a fixed length\) or cfl="\.\.\." with dt_max="\.\.\." \(steps from the Courant number\)]=])
fe_bad_input(cfl_negative [=[cfl_negative\.xml:6: <time cfl="-0\.5">: found cfl = -0\.5; expected a Courant number > 0]=])
fe_bad_input(cfl_not_number [=[cfl_not_number\.xml:6: <time cfl="half">: 'half' is not a number]=])
fe_bad_input(dt_max_zero [=[dt_max_zero\.xml:6: <time dt_max="0">: found dt_max = 0; expected a longest step > 0]=])
fe_bad_input(dt_max_too_small [=[dt_max_too_small\.xml:6: <time dt_max="1e-17">: dt_max = 1e-17 is too small for the times: start \+ dt_max == start \(start = 1, where doubles are 2\.22044605e-16 apart\); expected a dt_max many times larger than that spacing]=])
fe_bad_input(output_every_and_period [=[output_every_and_period\.xml:16: <output period="0\.25">: found every and period; expected one of them]=])
fe_bad_input(output_period_zero [=[output_period_zero\.xml:16: <output period="0">: found period = 0; expected a time between dumps > 0]=])
fe_bad_input(output_period_not_steps [=[output_period_not_steps\.xml:16: <output period="0\.15">: found period = 0\.15 with dt = 0\.1 \(line 6\), 1\.5 steps; expected a whole number of steps]=])
fe_bad_input(output_period_too_small [=[output_period_too_small\.xml:16: <output period="1e-13">: found \(end - start\) / period = 1e\+13 output times; expected at most 1e\+12 \(each is the end of a step\)]=])
fe_bad_input(end_before_start [=[end_before_start\.xml:6: <time end="1">: end must be > start]=])
fe_bad_input(end_equals_start [=[end_equals_start\.xml:6: <time end="1">: end must be > start \(start="1"\)]=])
fe_bad_input(time_not_finite [=[time_not_finite\.xml:6: <time end="INF">: end must be a finite number]=])
fe_bad_input(theta_too_large [=[theta_too_large\.xml:12: <scheme theta="1\.5">: theta must be in \[0, 1\]]=])
fe_bad_input(theta_negative [=[theta_negative\.xml:12: <scheme theta="-0\.5">: theta must be in \[0, 1\]]=])
fe_bad_input(rtol_negative [=[rtol_negative\.xml:13: <solver rtol="-1e-10">: rtol must be >= 0]=])
fe_bad_input(max_iterations_not_integer [=[max_iterations_not_integer\.xml:13: <solver max_iterations="2\.5">: '2\.5' is not an integer]=])
fe_bad_input(param_not_number [=[param_not_number\.xml:5: <param name="k">: syntax error at column 5 of expression '1e-3x': found 'x' after the number '1e-3'; expected an operator]=])
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
# <fluxes boundaries>: boundary groups of the mesh, each once
fe_bad_input(fluxes_unknown_group [=[fluxes_unknown_group\.xml:14: <fluxes boundaries="left wall">: the mesh [^ ]*square\.geo has no boundary physical group 'wall'; expected a group of curves, one of: bottom \(1\), right \(2\), top \(3\), left \(4\)]=])
fe_bad_input(fluxes_domain_group [=[fluxes_domain_group\.xml:14: <fluxes boundaries="domain">: the mesh [^ ]*square\.geo has no boundary physical group 'domain' \('domain' is a group of surfaces, a region of the domain\); expected a group of curves]=])
fe_bad_input(fluxes_empty [=[fluxes_empty\.xml:14: <fluxes boundaries=" ">: no physical group given; expected names or numbers of Gmsh physical groups \(or no boundaries attribute: every boundary group of the mesh\)]=])
fe_bad_input(fluxes_twice [=[fluxes_twice\.xml:14: <fluxes boundaries="left right left">: physical group 'left' named twice]=])
fe_bad_input(fluxes_same_group_by_number [=[fluxes_same_group_by_number\.xml:14: <fluxes boundaries="left 4">: '4' is physical group 4, listed already as 'left'; expected each group once]=])
fe_bad_input(fluxes_shared_name [=[fluxes_shared_name\.xml:14: <fluxes boundaries="wall">: the mesh [^ ]*names_shared\.msh gives the physical name 'wall' to 2 groups of curves, 1 and 4; expected a name of one group: refer to the group by its number, e\.g\. boundaries="1"]=])
fe_bad_input(fluxes_element_twice [=[fluxes_element_twice\.xml:15: <fluxes>: given twice \(first at line 14\); a case has one <fluxes> \(only <tracer> repeats\)]=])
# the velocity against the mesh's dimension
fe_bad_input(velocity_z_2d [=[velocity_z_2d\.xml:7: <velocity>: 3 components for the 2D mesh [^ ]*square\.geo; expected x and y]=])
fe_bad_input(velocity_missing_z_3d [=[velocity_missing_z_3d\.xml:7: <velocity>: 2 components for the 3D mesh [^ ]*cube_22\.msh; expected x, y and z]=])
# the velocity from files (tests/data/velocity, on grid8.msh): the case file's <velocity>
fe_bad_input(velocity_empty [=[velocity_empty\.xml:6: <velocity>: empty; expected the components <x> <y> \(<z>\), <file> elements or series="\.\.\."]=])
fe_bad_input(velocity_mixed [=[velocity_mixed\.xml:6: <velocity>: found components and <file> elements; expected one of: the components <x> <y> \(<z>\) as expressions, <file> elements, or series="\.\.\."]=])
fe_bad_input(velocity_field_expressions [=[velocity_field_expressions\.xml:6: <velocity field="u">: field names the point array of velocity files; expected it with <file> or series only]=])
fe_bad_input(velocity_file_missing [=[velocity_file_missing\.xml:6: <file>: velocity file '[^']*/data/velocity/none\.vtu' not found: No such file or directory]=])
fe_bad_input(velocity_file_extension [=[velocity_file_extension\.xml:6: <file>: velocity file '[^']*make_velocity_files\.py': expected \.vtk \(legacy VTK\), \.vtu \(VTK XML\) or \.msh \(Gmsh \$NodeData\)]=])
fe_bad_input(velocity_file_no_time [=[velocity_file_no_time\.xml:7: <file>: missing time="\.\.\."; with several files each needs its time]=])
fe_bad_input(velocity_file_times [=[velocity_file_times\.xml:6: <file time="1">: this file is at t = 1, not after the file at line 6 at t = 1; expected times that increase from snapshot to snapshot]=])
fe_bad_input(velocity_series_extension [=[velocity_series_extension\.xml:6: <velocity series="[^"]*grid8\.vtu">: expected a series index: NAME\.vtk\.series \(as fesim writes\) or a \.pvd collection]=])
fe_bad_input(velocity_series_no_time [=[/data/velocity/bad\.vtk\.series:1: entry 1 of "files" has no finite "time"; expected a file series]=])
fe_bad_input(velocity_series_backwards [=[velocity_series_backwards\.xml:6: <velocity series="[^"]*backwards\.vtk\.series">: file 1 of the series is at t = 0\.5, not after file 0 at t = 1; expected times that increase]=])
# the velocity files against the mesh and as velocities
fe_bad_input(velocity_count [=[/data/velocity/grid8\.vtu: 9 points; expected the [0-9]+ nodes of the mesh [^ ]*square\.geo \(the velocity at each node of the run's mesh\)]=])
fe_bad_input(velocity_moved [=[/data/velocity/grid8_moved\.vtu: point 1 at \(0\.55, 0\) is 0\.05 from the nearest node of the mesh [^ ]*grid8\.msh, at \(0\.5, 0\): more than 0\.0005 \(0\.001 of the shortest edge there\); expected the nodes of the run's mesh]=])
fe_bad_input(velocity_nodedata_missing [=[/data/velocity/grid8_missing\.msh: no value for 1 of the 9 nodes of the mesh [^ ]*grid8\.msh, node tag 5 at \(0\.5, 0\.5\) among them; expected a value at every node]=])
fe_bad_input(velocity_field_absent [=[/data/velocity/grid8\.vtk: no point array named 'speed' \(SCALARS, VECTORS or FIELD array of its POINT_DATA\); expected the velocity at the points]=])
fe_bad_input(velocity_scalar [=[/data/velocity/grid8_scalar\.vtu: the point array 'velocity' has 1 component; expected a velocity of 2 \(or 3, the third 0\) on the 2D mesh]=])
fe_bad_input(velocity_third_component [=[/data/velocity/grid8_w\.vtu: the velocity 'velocity' has z component 0\.2 at point 0, and the mesh [^ ]*grid8\.msh is 2D; expected 0 there]=])
fe_bad_input(velocity_nan [=[/data/velocity/grid8_nan\.vtu: the velocity 'velocity' is nan at point 0 \(component 1\); expected finite values]=])
fe_bad_input(velocity_empty_binary [=[/data/velocity/grid8_empty_binary\.vtu:6: <DataArray>: its data end before its header \(4 bytes\), or are not base64]=])
fe_bad_input(velocity_lz4 [=[/data/velocity/grid8_lz4\.vtu:2: <VTKFile>: compressor 'vtkLZ4DataCompressor': fesim reads vtkZLibDataCompressor and uncompressed data]=])
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
fe_bad_input(param_named_if [=[param_named_if\.xml:5: <param name="if">: 'if' is a reserved name; parameters may not be named x y z t pi e and or, nor after a function]=])
fe_bad_input(param_later [=[param_later\.xml:5: <param name="k">: parameter 'w' used before its definition at column 6 of expression '0\.01\*w': a parameter may use only the parameters defined above it; expected numbers, the constants pi e, the parameters defined above it \(none defined\), the operators ]=])
fe_bad_input(param_variable [=[param_variable\.xml:5: <param name="k">: variable 'x' in a parameter at column 5 of expression '0\.1\*x': a parameter is one number, evaluated when the case is read; expected numbers, the constants pi e, ]=])
fe_bad_input(param_not_finite [=[param_not_finite\.xml:5: <param name="k">: expression 'log\(0\)' is -inf; expected a finite value]=])
fe_bad_input(expr_min_arguments [=[expr_min_arguments\.xml:8: <initial>: wrong number of arguments at column 1 of expression 'min\(x, y, 1\)': found 3 arguments to 'min'; expected 2 arguments, as in min\(a, b\)]=])
fe_bad_input(expr_if_arguments [=[expr_if_arguments\.xml:8: <initial>: wrong number of arguments at column 1 of expression 'if\(x > 0\.5, 1\)': found 2 arguments to 'if'; expected 3 arguments, as in if\(condition, a, b\)]=])
fe_bad_input(expr_chained_comparison [=[expr_chained_comparison\.xml:8: <initial>: syntax error at column 9 of expression '0\.2 < x < 0\.4': found '<' after a comparison: comparisons do not chain; expected 'and' between two comparisons, as in 0 < x and x < 1]=])
fe_bad_input(expr_syntax [=[expr_syntax\.xml:8: <initial>: syntax error at column 2 of expression '2x \+ y': found 'x' after the number '2'; expected an operator]=])
fe_bad_input(expr_syntax_column [=[expr_syntax_column\.xml:8: <initial>: syntax error at column 38 of expression 'exp\(-\(\(x-0\.25\)\^2 \+ y\^2\)/0\.005\) \+ 0\.5 sin\(pi\*x\)': found 'sin' after the number '0\.5'; expected an operator]=])
fe_bad_input(expr_unbalanced [=[expr_unbalanced\.xml:8: <initial>: unbalanced parentheses at column 4 of expression 'exp\(-\(\(x-0\.25\)\^2 \+ y\^2/0\.005\)': this '\(' is never closed; expected '\)']=])
fe_bad_input(expr_empty [=[expr_empty\.xml:8: <initial>: empty expression; expected the variables x y z t, the parameters \(k\), the constants pi e, the operators \+ - \* / \^ < <= > >= == != and or, and the functions sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs floor erf min max atan2 if]=])
fe_bad_input(expr_unknown_variable [=[expr_unknown_variable\.xml:8: <initial>: unknown variable 'w' at column 3 of expression 'x\*w'; expected the variables x y z t, the parameters \(k\), the constants pi e, ]=])
fe_bad_input(expr_unknown_function [=[expr_unknown_function\.xml:8: <initial>: unknown function 'cot' at column 1 of expression 'cot\(x\)'; expected the variables x y z t, ]=])
fe_bad_input(expr_bad_character [=[expr_bad_character\.xml:8: <initial>: unexpected character '\[' at column 2 of expression 'x\[1\]'; expected the variables x y z t, ]=])
# a Fourier series of 20 terms: 239 instructions after folding, the machine holds 192
fe_bad_input(expr_too_long [=[expr_too_long\.xml:8: <initial>: too many instructions in expression 'sin\(1\*pi\*x\)\*sin\(1\*pi\*y\)/1\^2 \+ [^']*\+ sin\(20\*pi\*x\)\*sin\(20\*pi\*y\)/20\^2' \(630 characters\): it needs 239 instructions after folding constants; expected at most 192]=])

# Expressions of any length and depth, too large to commit: written at configure
# time into the build tree as the <initial> of a case like expr_syntax.xml (the
# same line 8), then run as fe_bad_input runs a case (--check and a real run).
# None may overflow a stack: each gets exit 2 and one message with the text cut.
# fe_generated_case(NAME INITIAL EXTRA VAR): that case, with EXTRA after its <backend> (line
# 13 on), written as generated/NAME.xml, its path in VAR.
function(fe_generated_case name initial extra var)
  set(FE_EXPR_TEXT "${initial}")
  set(FE_EXTRA "${extra}")
  set(case ${FE_BAD_INPUT_OUT}/generated/${name}.xml)
  file(CONFIGURE OUTPUT ${case} @ONLY CONTENT [=[<?xml version="1.0" encoding="UTF-8"?>
<fesim version="1">
  <name>bad</name>
  <mesh file="@FE_BAD_INPUT_DIR@/square.geo"/>
  <parameters><param name="k">0.1</param></parameters>
  <time start="0" end="1" dt="0.1"/>
  <tracer name="T">
    <initial>@FE_EXPR_TEXT@</initial>
    <diffusivity>k</diffusivity>
    <boundary physical="left"><dirichlet>0</dirichlet></boundary>
  </tracer>
  <backend>cpu</backend>
@FE_EXTRA@
</fesim>
]=])
  set(${var} ${case} PARENT_SCOPE)
endfunction()
function(fe_expr_case name text var)
  fe_generated_case(${name} "${text}" "" case)
  set(${var} ${case} PARENT_SCOPE)
endfunction()

# fe_bad_generated(NAME CASE REGEX): a generated case with --check and in a real run.
function(fe_bad_generated name case regex)
  add_test(NAME bad_input.${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DARGS=--check;${case}" -DCODE=2
                   "-DREGEX=${regex}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  add_test(NAME bad_input.${name}.run
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DCASE=${case}"
                   "-DOUT=${FE_BAD_INPUT_OUT}/${name}.run" -DCODE=2 "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_untouched.cmake)
  set_tests_properties(bad_input.${name} bad_input.${name}.run PROPERTIES LABELS bad_input)
endfunction()

# fe_bad_expr(NAME TEXT REGEX)
function(fe_bad_expr name text regex)
  fe_expr_case(${name} "${text}" case)
  fe_bad_generated(${name} ${case} "${regex}")
endfunction()

# 200000 terms (400 KB): compiled in full to count what the machine would need
string(REPEAT "x+" 199999 text)
fe_bad_expr(expr_sum_400k "${text}x" [=[expr_sum_400k\.xml:8: <initial>: too many instructions in expression '(x\+)+\.\.\.(x\+)+x' \(399999 characters\): it needs 399999 instructions after folding constants; expected at most 192]=])
string(REPEAT "x^" 199999 text)
fe_bad_expr(expr_power_400k "${text}x" [=[expr_power_400k\.xml:8: <initial>: too many instructions in expression '(x\^)+\.\.\.(x\^)+x' \(399999 characters\): it needs 399999 instructions after folding constants; expected at most 192]=])
# 100000 levels: refused at level 101
string(REPEAT "(" 100000 open)
string(REPEAT ")" 100000 close)
fe_bad_expr(expr_parentheses_100k "${open}x${close}" [=[expr_parentheses_100k\.xml:8: <initial>: nesting too deep at column 101 of expression '\(+\.\.\.\)+' \(200001 characters\): more than 100 levels of parentheses, function calls and unary minus signs; expected at most 100]=])
string(REPEAT "-" 100000 text)
fe_bad_expr(expr_minus_100k "${text}x" [=[expr_minus_100k\.xml:8: <initial>: nesting too deep at column 101 of expression '-+\.\.\.-+x' \(100001 characters\): more than 100 levels of parentheses, function calls and unary minus signs; expected at most 100]=])
# x^-x^-x...: each exponent's unary minus takes the rest of the chain, one level deeper
string(REPEAT "^-x" 100000 text)
fe_bad_expr(expr_power_minus_100k "x${text}" [=[expr_power_minus_100k\.xml:8: <initial>: nesting too deep at column 303 of expression 'x(\^-x)+\^-\.\.\.(\^-x)+' \(300001 characters\): more than 100 levels of parentheses, function calls and unary minus signs; expected at most 100]=])
# A 400 KB sum of constants folds to one: fesim checks and runs it (exit 0)
string(REPEAT "1+" 199999 text)
fe_expr_case(expr_constant_sum_400k "${text}1" case)
add_test(NAME bad_input.expr_constant_sum_400k COMMAND fesim --check ${case})
add_test(NAME bad_input.expr_constant_sum_400k.run
         COMMAND fesim --quiet --output ${FE_BAD_INPUT_OUT}/expr_constant_sum_400k.run ${case})
set_tests_properties(bad_input.expr_constant_sum_400k bad_input.expr_constant_sum_400k.run
                     PROPERTIES LABELS bad_input)
# Parameters that are expressions and a piecewise initial condition (if, and,
# or, comparisons, min, max, floor, erf, atan2): --check reports the
# parameters' values, and the case runs (exit 0)
add_test(NAME bad_input.piecewise COMMAND fesim --check ${FE_BAD_INPUT_DIR}/piecewise.xml)
add_test(NAME bad_input.piecewise.run
         COMMAND fesim --quiet --output ${FE_BAD_INPUT_OUT}/piecewise.run ${FE_BAD_INPUT_DIR}/piecewise.xml)
set_tests_properties(bad_input.piecewise PROPERTIES LABELS bad_input PASS_REGULAR_EXPRESSION
  "\nparameters k = 0\\.001, w = 6\\.28318530717959, r = 0\\.15, slot = 0\\.05, top = 0\\.575\n")
set_tests_properties(bad_input.piecewise.run PROPERTIES LABELS bad_input)
# expressions that are not finite somewhere on the mesh at time@start
fe_bad_input(nonfinite_initial [=[nonfinite_initial\.xml:8: <initial>: expression 'log\(x\)' is -inf at the node \(x, y\) = \(0, [0-9.e-]+\), t = 0; expected a finite value]=])
# the source and Neumann fluxes where the loads evaluate them: at the nodes (loads="interpolated",
# where 1/(x - 0.5) is infinite) or at the quadrature points of the cells and boundary facets
fe_bad_input(nonfinite_source [=[nonfinite_source\.xml:10: <source>: expression '1/\(x - 0\.5\)' is inf at the node \(x, y\) = \(0\.5, [0-9.e-]+\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_source_quadrature [=[nonfinite_source_quadrature\.xml:10: <source>: expression 'sqrt\(0\.5 - x\)' is nan at the quadrature point \(x, y\) = \(0\.833333, 0\.833333\) of element 18, t = 0; expected a finite value]=])
fe_bad_input(nonfinite_diffusivity [=[nonfinite_diffusivity\.xml:9: <diffusivity>: expression 'sqrt\(x - 2\)' is nan at the centroid \(x, y\) = \([^)]*\) of element [0-9]+, t = 0; expected a finite value]=])
fe_bad_input(nonfinite_velocity [=[nonfinite_velocity\.xml:7: <velocity><x>: expression '1/y' is inf at the node \(x, y\) = \([0-9.e-]+, 0\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_dirichlet [=[nonfinite_dirichlet\.xml:10: <dirichlet>: expression '1/x' is inf at the node \(x, y\) = \(0, [0-9.e-]+\), t = 0; expected a finite value]=])
fe_bad_input(nonfinite_neumann [=[nonfinite_neumann\.xml:10: <neumann>: expression 'log\(y\)' is -inf at the quadrature point \(x, y\) = \([0-9.e-]+, 0\) of boundary element [0-9]+, t = 0; expected a finite value]=])
fe_bad_input(nonfinite_neumann_interpolated [=[nonfinite_neumann_interpolated\.xml:10: <neumann>: expression 'log\(y\)' is -inf at the node \(x, y\) = \([0-9.e-]+, 0\), t = 0; expected a finite value]=])
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
# a script that never ends, stopped at --mesh-time-limit, naming the line it had reached
fe_bad_input(geo_endless_loop [=[data/geo/endless_loop\.geo:[4-9]: stopped after 2 s while running the script; expected it to end within --mesh-time-limit 2 \(an endless loop, or a mesh too fine\?\): raise the limit, or mesh it coarser]=] --mesh-time-limit 2)
# a mesh file with more cells than --max-cells
fe_bad_input(mesh_max_cells [=[data/mesh/square_22\.msh: the mesh has 242 cells, more than the limit of 100; raise the limit with --max-cells]=] --max-cells 100)
# out of memory while meshing (the address space limited with ulimit -v, which the meshing
# process inherits): exit 4 and a message, never an abort; not where a sanitizer needs the
# address space
if(NOT FESIM_SANITIZE)
  add_test(NAME bad_input.geo_out_of_memory
           COMMAND ${CMAKE_COMMAND} -DFESIM=/bin/sh
                   "-DARGS=-c;ulimit -v 600000 && exec $<TARGET_FILE:fesim> --check ${FE_BAD_INPUT_DIR}/geo_out_of_memory.xml"
                   -DCODE=4
                   [=[-DREGEX=data/geo/square\.geo: the meshing process ran out of memory while meshing it \(std::bad_alloc\); expected a mesh that fits the memory available: mesh it coarser, or free memory]=]
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(bad_input.geo_out_of_memory PROPERTIES LABELS bad_input)
endif()

# A <time> that cannot be stepped (io/schedule.h): a span that overflows, a dt lost in the
# round-off of the times, more than 10^12 steps.
fe_bad_input(time_span_overflow [=[time_span_overflow\.xml:6: <time end="1e308">: end - start = 1e\+308 - \(-1e\+308\) is not a finite number; expected start and end whose difference a double can hold]=])
fe_bad_input(dt_lost_at_start [=[dt_lost_at_start\.xml:6: <time dt="1e-17">: dt = 1e-17 is too small for the times: start \+ dt == start \(start = 1, where doubles are 2\.22044605e-16 apart\); expected a dt many times larger than that spacing]=])
fe_bad_input(dt_lost_at_end [=[dt_lost_at_end\.xml:6: <time dt="1e-11">: dt = 1e-11 is too small for the times: end - dt == end \(end = 1000000, where doubles are 1\.16415322e-10 apart\); expected a dt many times larger than that spacing]=])
fe_bad_input(too_many_steps [=[too_many_steps\.xml:6: <time dt="1e-7">: \(end - start\) / dt = 1e\+13 steps \(start = 0, end = 1000000\); expected at most 1e\+12 steps]=])

# Checkpoints (io/checkpoint.h), verified before a restart uses any of them: each hand-made
# from the checkpoint of step 4 of a real run of restart.xml (make_checkpoints.c, at test time,
# in the build tree), refused by --check --restart and by the real run, which writes nothing.
add_executable(make_checkpoints ${FE_BAD_INPUT_DIR}/make_checkpoints.c)
target_link_libraries(make_checkpoints PRIVATE fe_io)
set(FE_CHECKPOINTS ${FE_BAD_INPUT_OUT}/checkpoints)
add_test(NAME bad_input.checkpoints_made
         COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DMAKE=$<TARGET_FILE:make_checkpoints>"
                 "-DCASE=${FE_BAD_INPUT_DIR}/restart.xml" "-DOUT=${FE_CHECKPOINTS}"
                 -P ${FE_BAD_INPUT_DIR}/make_checkpoints.cmake)
set_tests_properties(bad_input.checkpoints_made PROPERTIES LABELS bad_input FIXTURES_SETUP fe_bad_checkpoints)

# fe_bad_restart(NAME REGEX): --restart checkpoints/NAME.bin, with --check and in a real run.
function(fe_bad_restart name regex)
  set(ckpt ${FE_CHECKPOINTS}/${name}.bin)
  add_test(NAME bad_input.restart_${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>"
                   "-DARGS=--check;--restart;${ckpt};${FE_BAD_INPUT_DIR}/restart.xml" -DCODE=2
                   "-DREGEX=${regex}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(bad_input.restart_${name} PROPERTIES LABELS bad_input
                       FIXTURES_REQUIRED fe_bad_checkpoints)
  fe_bad_run(restart_${name}.run restart "${regex}" --restart ${ckpt})
  set_tests_properties(bad_input.restart_${name}.run PROPERTIES FIXTURES_REQUIRED fe_bad_checkpoints)
endfunction()
set(fe_ckpt [=[checkpoint '[^']*/checkpoints/]=])
fe_bad_restart(empty "${fe_ckpt}empty\\.bin' is not a complete fesim checkpoint; expected a file written by fesim \\(NAME_checkpoint_NNNNNN\\.bin\\), which starts with 'fesim-ckpt-v'")
fe_bad_restart(version1 "${fe_ckpt}version1\\.bin' is a checkpoint of format version 1 \\(written by an earlier fesim\\); this fesim reads version 4 only, whose checkpoints it can verify: rerun the case from its start")
fe_bad_restart(flipped "${fe_ckpt}flipped\\.bin' is damaged \\(truncated or altered\\): its checksum does not match its contents \\(1016 bytes; its header gives 1016\\); expected a checkpoint as fesim wrote it")
fe_bad_restart(truncated "${fe_ckpt}truncated\\.bin' is damaged \\(truncated or altered\\): its checksum does not match its contents \\(916 bytes; its header gives 1016\\)")
fe_bad_restart(huge_dumps "${fe_ckpt}huge_dumps\\.bin' is inconsistent: it declares 1152921504606846976 dump times and 1 x 98 node values \\(tracers x nodes\\), and holds 808 bytes of values")
fe_bad_restart(dump_count_large "${fe_ckpt}dump_count_large\\.bin' is 8992 bytes, more than a checkpoint of this case can be \\(1040 bytes\\): it belongs to another case or mesh, or is damaged")
fe_bad_restart(nan_field "${fe_ckpt}nan_field\\.bin' holds a field that is not finite: nan at node 3 of 98; a checkpoint keeps a finite state")
fe_bad_restart(other_name "${fe_ckpt}other_name\\.bin' was written by case 'other'; this case is 'bad' \\(<name>\\): a checkpoint continues its own case")
fe_bad_restart(other_mesh "${fe_ckpt}other_mesh\\.bin' was written on another mesh: 98 nodes, 162 cells, identity ([0-9a-f]+); this case's mesh has 98 nodes, 162 cells, identity [0-9a-f]+")
fe_bad_restart(other_columns "${fe_ckpt}other_columns\\.bin' was written by a run whose stat file has the columns 'step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,diffusion_iterations,wall_seconds'; this case's has 'step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,wall_seconds'")
fe_bad_restart(other_fields "${fe_ckpt}other_fields\\.bin' was written by a run whose dumps hold the fields 'T,velocity'; this case's hold 'T'")
fe_bad_restart(other_dt "${fe_ckpt}other_dt\\.bin' is at step 4, t = 0\\.2; this case's step 4 ends at t = 0\\.4: its <time> \\(start, dt\\) is not the one of the run that wrote the checkpoint")
fe_bad_restart(past_end "${fe_ckpt}past_end\\.bin' is at step 10; this case has 10 steps \\(<time>\\), so nothing is left to run")
fe_bad_restart(dump_count "${fe_ckpt}dump_count\\.bin' holds 4 dumps at step 4; this case's schedule \\(a dump every 2 steps\\) gives 3 by then: its <output every> is not the one of the run that wrote the checkpoint")
# never blocks on a FIFO; not a directory either
fe_bad_restart(fifo "${fe_ckpt}fifo\\.bin' is a FIFO; expected a checkpoint file written by fesim")
fe_bad_restart(directory "${fe_ckpt}directory\\.bin' is a directory; expected a checkpoint file written by fesim")
# A restart whose stat file is not the run's (other columns, no row of the checkpoint's step,
# that row at another time): refused before anything is written, the directory left as it was.
foreach(edit columns missing_row other_time)
  set(regex_columns "cannot continue '[^']*/restart_stat_columns/bad\\.stat': its columns are 'step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,diffusion_iterations,wall_seconds', this run writes 'step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,wall_seconds'; a restart continues the stat file of its own run")
  set(regex_missing_row "cannot continue '[^']*/restart_stat_missing_row/bad\\.stat': it has no row of step 4 \\(its last complete row is on line 5\\); a restart needs the stat file of the run that wrote the checkpoint")
  set(regex_other_time "cannot continue '[^']*/restart_stat_other_time/bad\\.stat': its row of step 4 \\(line 6\\) is at t = 0\\.5, the checkpoint's step at t = 0\\.40000000000000002")
  add_test(NAME bad_input.restart_stat_${edit}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DCASE=${FE_BAD_INPUT_DIR}/restart.xml"
                   "-DRUN=${FE_CHECKPOINTS}/run" "-DOUT=${FE_BAD_INPUT_OUT}/restart_stat_${edit}"
                   -DEDIT=${edit} "-DREGEX=${regex_${edit}}" -P ${FE_BAD_INPUT_DIR}/restart_stat.cmake)
  set_tests_properties(bad_input.restart_stat_${edit} PROPERTIES LABELS bad_input
                       FIXTURES_REQUIRED fe_bad_checkpoints)
endforeach()

# A case with <probes> restarted from a run without them: no probes file to continue.
add_test(NAME bad_input.restart_probes_missing
         COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DCASE=${FE_BAD_INPUT_DIR}/restart_probes.xml"
                 "-DRUN=${FE_CHECKPOINTS}/run" "-DOUT=${FE_BAD_INPUT_OUT}/restart_probes_missing" -DEDIT=none
                 "-DREGEX=cannot continue '[^']*/restart_probes_missing/bad\\.probes\\.csv': No such file or directory; a restart needs the probes file of the run"
                 -P ${FE_BAD_INPUT_DIR}/restart_stat.cmake)
set_tests_properties(bad_input.restart_probes_missing PROPERTIES LABELS bad_input
                     FIXTURES_REQUIRED fe_bad_checkpoints)

# Outputs checked up front: the dump's field names (distinct, none named like the dump's own
# arrays, within VTK's 255 bytes) and every output file name against the file system's
# NAME_MAX and PATH_MAX (here the case <name>; long --output paths in long_paths.cmake).
fe_bad_input(tracer_named_velocity [=[tracer_named_velocity\.xml:8: <tracer name="velocity">: the dumps would hold two arrays named 'velocity': the tracer and the velocity; expected tracer names that no other array of the dumps has \(another tracer's, velocity, region, TIME, NAME_exact, NAME_error\)]=])
# several tracers: names distinct, and none the name of another's exact solution or error
fe_bad_input(tracer_twice [=[tracer_twice\.xml:15: <tracer name="T">: a second tracer named 'T' \(the first at line 7\); expected a name per tracer, which names its fields in the dumps and its columns]=])
fe_bad_input(tracer_named_exact [=[tracer_named_exact\.xml:7: <tracer name="T">: the dumps would hold two arrays named 'T_exact': the tracer of <tracer name="T_exact"> \(line 12\) and the exact solution; expected tracer names]=])
fe_bad_input(tracer_named_region [=[tracer_named_region\.xml:7: <tracer name="region">: the dumps would hold two arrays named 'region': the tracer and the cell field region; expected]=])
fe_bad_input(tracer_named_time [=[tracer_named_time\.xml:7: <tracer name="TIME">: the dumps would hold two arrays named 'TIME': the tracer and the time \(field data TIME\); expected]=])
fe_bad_input(tracer_name_long [=[tracer_name_long\.xml:7: <tracer name='T+\.\.\.T+' \(250 characters\)>: the field name of the exact solution is 256 bytes long; VTK's legacy reader takes names of at most 255: expected a shorter tracer name]=])
fe_bad_input(name_too_long [=[output file name 'n+\.\.\.n+\.stat' \(257 characters\) is too long: 257 bytes, where the file system of the output directory '[^']*' allows 255 \(NAME_MAX\); expected a shorter <name> \([^)]*name_too_long\.xml\)]=])
add_test(NAME bad_input.long_paths
         COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DSRC=${FE_BAD_INPUT_DIR}"
                 "-DWORK=${FE_BAD_INPUT_OUT}/long_paths" -P ${FE_BAD_INPUT_DIR}/long_paths.cmake)
set_tests_properties(bad_input.long_paths PROPERTIES LABELS bad_input)

# The command line (app/cli.c): exit 1, a message saying what is wrong with which argument, the usage.
function(fe_bad_usage name regex)
  add_test(NAME bad_input.usage_${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DARGS=${ARGN}" "-DREGEX=${regex}"
                   -P ${FE_BAD_INPUT_DIR}/expect_usage.cmake)
  set_tests_properties(bad_input.usage_${name} PROPERTIES LABELS bad_input)
endfunction()
set(fe_good ${FE_BAD_INPUT_DIR}/good.xml)
fe_bad_usage(short_option [=[unknown option '-x': fesim's options are long ones \(--check, --output DIR, \.\.\.\)]=] -x ${fe_good})
fe_bad_usage(unknown_option [=[unknown option '--frobnicate']=] --frobnicate ${fe_good})
fe_bad_usage(unknown_option_value [=[unknown option '--frobnicate']=] --frobnicate=1 ${fe_good})
fe_bad_usage(ambiguous_option [=[option '--ver' is ambiguous: it begins --verbose, --version]=] --ver ${fe_good})
fe_bad_usage(missing_value [=[option '--restart' needs a value \(CHECKPOINT\) after it]=] ${fe_good} --restart)
fe_bad_usage(option_as_value [=[option '--output' needs a value \(DIR\); found the option '--force' \(write --output=--force for a value that begins with --\)]=] --output --force ${fe_good})
fe_bad_usage(empty_value [=[option '--output' needs a value \(DIR\); found an empty one]=] --output= ${fe_good})
fe_bad_usage(flag_with_value [=[option '--force' takes no value; found '--force=yes']=] --force=yes ${fe_good})
fe_bad_usage(bad_backend [=[unknown backend 'gpu'; expected one of auto, cpu, cuda]=] --backend gpu ${fe_good})
fe_bad_usage(bad_stabilisation [=[unknown stabilisation 'upwind'; expected one of none, fct, supg]=] --stabilisation upwind ${fe_good})
fe_bad_usage(bad_loads [=[unknown loads 'exact'; expected one of quadrature, interpolated]=] --loads exact ${fe_good})
fe_bad_usage(no_case [=[no case file given]=] --check)
fe_bad_usage(two_cases [=[one case file expected, found 'b\.xml' after 'a\.xml']=] a.xml b.xml)
# after --, a name that begins with - is the case file
add_test(NAME bad_input.usage_dash_case
         COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>" "-DARGS=--check;--;-x.xml" -DCODE=2
                 [=[-DREGEX=cannot open case file '-x\.xml': No such file or directory]=]
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
set_tests_properties(bad_input.usage_dash_case PROPERTIES LABELS bad_input)
# the meshing process's limits
fe_bad_usage(mesh_time_limit [=[option '--mesh-time-limit' needs a number of seconds > 0; found '-1']=] --mesh-time-limit=-1 ${fe_good})
fe_bad_usage(max_cells [=[option '--max-cells' needs a whole number of cells from 1 to 2147483646; found '1e3']=] --max-cells 1e3 ${fe_good})


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

# Probes (<probes>): the element and its <probe> children, a file of points, each probe
# against the mesh (one coordinate per axis, in the mesh or within 0.1 of a cell of it).
fe_bad_input(probes_empty [=[probes_empty\.xml:13: <probes>: no probe; expected <probe name="\.\.\." x="\.\.\." y="\.\.\."/> elements, or file="points\.csv" with a row name,x,y per probe]=])
fe_bad_input(probes_every_zero [=[probes_every_zero\.xml:13: <probes every="0">: found every = 0; expected a row every N > 0 steps]=])
fe_bad_input(probe_bad_name [=[probe_bad_name\.xml:14: <probe name="a%b">: not a valid probe name; expected 1 to 64 letters, digits, '_', '-' or '\.']=])
fe_bad_input(probe_duplicate [=[probe_duplicate\.xml:15: <probe name="a">: the probe name 'a' is given twice \(first: [^ ]*probe_duplicate\.xml:14: <probe name="a">\); expected a name per probe, which names its columns of NAME\.probes\.csv]=])
fe_bad_input(probe_not_finite [=[probe_not_finite\.xml:14: <probe x="INF">: x must be a finite number]=])
fe_bad_input(probe_not_number [=[probe_not_number\.xml:14: <probe y="abc">: 'abc' is not a number]=])
fe_bad_input(probe_missing_y [=[probe_missing_y\.xml:14: <probe>: the attribute 'y' is required but missing]=])
fe_bad_input(probes_file_missing [=[probes_file_missing\.xml:13: <probes file="no_such_points\.csv">: file of points '[^']*no_such_points\.csv' not found: No such file or directory]=])
fe_bad_input(probe_outside [=[probe_outside\.xml:15: <probe name="far">: the point \(x, y\) = \(1\.5, 0\.5\) is outside the mesh [^ ]*square\.geo, which spans \[0, 1\] x \[0, 1\]; expected a point in the mesh or on its boundary \(a point outside a cell by at most 0\.1 of it, in barycentric coordinates, counts as on it\)]=])
fe_bad_input(probe_z_2d [=[probe_z_2d\.xml:14: <probe name="a">: 3 coordinates \(x, y, z\) for the 2D mesh [^ ]*square\.geo; expected x and y]=])
fe_bad_input(probe_no_z_3d [=[probe_no_z_3d\.xml:14: <probe name="a">: 2 coordinates \(x, y\) for the 3D mesh [^ ]*cube_22\.msh; expected x, y and z]=])

# fe_bad_points(NAME TEXT REGEX): a file of points TEXT (points_NAME.csv), written at configure
# time into the build tree beside a generated case whose <probes file> names it (line 13; its
# <probe name="a"> on line 14), run as fe_bad_input runs a case.
function(fe_bad_points name text regex)
  file(WRITE ${FE_BAD_INPUT_OUT}/generated/points_${name}.csv "${text}")
  fe_generated_case(points_${name} "x*y" "  <probes file=\"points_${name}.csv\">
    <probe name=\"a\" x=\"0.5\" y=\"0.5\"/>
  </probes>" case)
  fe_bad_generated(points_${name} ${case} "${regex}")
endfunction()
fe_bad_points(empty "" [=[points_empty\.csv:1: the header is missing \(the file is empty\); expected the columns name,x,y \(2D\) or name,x,y,z \(3D\)]=])
fe_bad_points(header "id,x,y\nb,0.5,0.5\n" [=[points_header\.csv:1: the header is 'id,x,y'; expected the columns name,x,y \(2D\) or name,x,y,z \(3D\)]=])
fe_bad_points(no_rows "name,x,y\n\n  \n" [=[points_no_rows\.csv: no probe: a header and no rows; expected a row name,x,y per probe]=])
fe_bad_points(values "name,x,y\nb,0.5,0.5\nc,0.5\n" [=[points_values\.csv:3: 2 values; expected 3, as the header name,x,y says]=])
fe_bad_points(name "name,x,y\nb c,0.5,0.5\n" [=[points_name\.csv:2: 'b c' is not a valid probe name; expected 1 to 64 letters, digits, '_', '-' or '\.']=])
fe_bad_points(not_number "name,x,y\nb,0.5,half\n" [=[points_not_number\.csv:2: probe 'b': y = 'half' is not a number]=])
fe_bad_points(not_finite "name,x,y\nb,nan,0.5\n" [=[points_not_finite\.csv:2: probe 'b': x = nan is not a finite number]=])
string(REPEAT "b" 5000 long_name)
fe_bad_points(long_line "name,x,y\n${long_name},0.5,0.5\n" [=[points_long_line\.csv:2: a line longer than 4096 bytes; expected lines name,x,y\[,z\]]=])
fe_bad_points(duplicate "name,x,y\nb,0.5,0.25\na,0.5,0.75\n" [=[points_duplicate\.csv:3: probe 'a': the probe name 'a' is given twice \(first: [^ ]*points_duplicate\.xml:14: <probe name="a">\); expected a name per probe]=])
fe_bad_points(3d_on_2d "name,x,y,z\nb,0.5,0.5,0\n" [=[points_3d_on_2d\.csv:2: probe 'b': 3 coordinates \(x, y, z\) for the 2D mesh [^ ]*square\.geo; expected the columns name,x,y]=])
fe_bad_points(outside "name,x,y\nb,0.5,0.5\nlow,0.5,-1\n" [=[points_outside\.csv:3: probe 'low': the point \(x, y\) = \(0\.5, -1\) is outside the mesh [^ ]*square\.geo, which spans \[0, 1\] x \[0, 1\]; expected a point in the mesh or on its boundary]=])

# Periodic meshes (tests/data/mesh/make_periodic_meshes.py, docs/case-format.md: Periodic
# meshes): each bad mesh in a case of its own, generated (the square is periodic: no
# <boundary>, or one on a periodic group).  A slave node without a master (a pair missing, a
# pair with a node the mesh lacks: MSH 4.1 read by Gmsh, MSH 2.2 by fesim), paired boundaries
# of different node counts, a node that is its own master (paired with itself, or through a
# cycle of links), a pair off the link's transform, a cell with two copies of one node, a
# $Periodic in a format fesim does not read it from (binary MSH 2, MSH 3), a <boundary> on a
# periodic group.
function(fe_bad_periodic name mesh regex)
  set(FE_PERIODIC_MESH ${CMAKE_CURRENT_SOURCE_DIR}/data/mesh/${mesh})
  set(FE_PERIODIC_BOUNDARY "${ARGN}")
  set(case ${FE_BAD_INPUT_OUT}/generated/periodic_${name}.xml)
  file(CONFIGURE OUTPUT ${case} @ONLY CONTENT [=[<?xml version="1.0" encoding="UTF-8"?>
<fesim version="1">
  <name>bad</name>
  <mesh file="@FE_PERIODIC_MESH@"/>
  <time start="0" end="1" dt="0.1"/>
  <velocity><x>1</x><y>1</y></velocity>
  <tracer name="T">
    <initial>x*y</initial>
    <diffusivity>0.1</diffusivity>
    @FE_PERIODIC_BOUNDARY@
  </tracer>
  <backend>cpu</backend>
</fesim>
]=])
  fe_bad_generated(periodic_${name} ${case} "${regex}")
endfunction()
set(fe_pm [=[data/mesh/periodic_]=])
fe_bad_periodic(unmatched periodic_unmatched_41.msh "${fe_pm}unmatched_41\\.msh: node 6 of curve 2 has no master node: curve 2 is periodic with curve 1, and the \\$Periodic section pairs 2 of its 3 nodes; expected each of them paired with a node of curve 1")
fe_bad_periodic(no_node_41 periodic_no_node_41.msh "${fe_pm}no_node_41\\.msh: the \\$Periodic section refers to node 99, which the mesh does not have; expected the node tags of its \\$Nodes and the entities of its \\$Entities")
fe_bad_periodic(no_node_22 periodic_no_node_22.msh "${fe_pm}no_node_22\\.msh: the \\$Periodic section \\(line 53\\) pairs node 6 of curve 102 with node 99 of curve 101, and the mesh has no node 99; expected node tags of the \\$Nodes section")
fe_bad_periodic(counts periodic_counts_22.msh "${fe_pm}counts_22\\.msh: curve 102 has 3 nodes and curve 101, its master in the \\$Periodic section, has 4; expected periodic boundaries with as many nodes, meshed alike")
fe_bad_periodic(self periodic_self_22.msh "${fe_pm}self_22\\.msh: node 6 is its own master: the \\$Periodic section pairs it with itself \\(curve 102 with curve 101\\); expected a node of the master curve")
fe_bad_periodic(cycle periodic_cycle_22.msh "${fe_pm}cycle_22\\.msh: node 1 is its own master: its master nodes in the \\$Periodic section, and theirs, lead back to it; expected chains of masters that end at a node that is no slave")
fe_bad_periodic(far periodic_far_41.msh "${fe_pm}far_41\\.msh: the \\$Periodic section pairs node 6 at \\(1, 0\\.5\\) of curve 2 with node 7 at \\(0, 1\\) of curve 1, which the link's affine transform takes to \\(1, 1\\), 0\\.5 from node 6: more than 0\\.0005 \\(0\\.001 of the shortest edge there\\); expected each slave node where the transform takes its master")
fe_bad_periodic(span periodic_span.geo "${fe_pm}span\\.geo: element [0-9]+ has nodes [0-9]+ and [0-9]+, which the script's Periodic links make copies of one node: the cell spans the periodic domain; expected at least two cells across each periodic direction")
fe_bad_periodic(binary periodic_binary_22.msh "${fe_pm}binary_22\\.msh: a periodic mesh in binary MSH 2\\.2, whose \\$Periodic section fesim does not read; expected MSH 4\\.1 \\(ASCII or binary\\) or ASCII MSH 2\\.2")
fe_bad_periodic(msh3 periodic_30.msh "${fe_pm}30\\.msh: a periodic mesh in ASCII MSH 3, whose \\$Periodic section fesim does not read; expected MSH 4\\.1 \\(ASCII or binary\\) or ASCII MSH 2\\.2")
fe_bad_periodic(boundary periodic_22.msh "periodic_boundary\\.xml:10: <boundary physical=\"left\">: physical group 'left' \\(1\\) of the mesh [^ ]*periodic_22\\.msh lies on a periodic boundary \\(element 1: curves 102 and 101 are periodic, Gmsh's Periodic\\): the domain continues across it, and its nodes are copies of the nodes on the other side; expected a group of the boundary that is not periodic, or the mesh without that periodicity"
                "<boundary physical=\"left\"><dirichlet>0</dirichlet></boundary>")
