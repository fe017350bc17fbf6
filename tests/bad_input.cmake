# Bad case files: `fesim --check FILE` must exit with 2 and print one message
# naming the file, the line and the element (tests/bad_input/*.xml).
set(FE_BAD_INPUT_DIR ${CMAKE_CURRENT_SOURCE_DIR}/bad_input)

function(fe_bad_input name regex)
  add_test(NAME bad_input.${name}
           COMMAND ${CMAKE_COMMAND} "-DFESIM=$<TARGET_FILE:fesim>"
                   "-DARGS=--check;${FE_BAD_INPUT_DIR}/${name}.xml" -DCODE=2 "-DREGEX=${regex}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cases/expect_exit.cmake)
  set_tests_properties(bad_input.${name} PROPERTIES LABELS bad_input)
endfunction()

# XML itself
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
fe_bad_input(end_before_start [=[end_before_start\.xml:6: <time end="1">: end must be > start]=])
fe_bad_input(theta_too_large [=[theta_too_large\.xml:12: <scheme theta="1\.5">: theta must be in \[0, 1\]]=])
fe_bad_input(rtol_negative [=[rtol_negative\.xml:13: <solver rtol="-1e-10">: rtol must be >= 0]=])
fe_bad_input(max_iterations_zero [=[max_iterations_zero\.xml:13: <solver max_iterations="0">: max_iterations must be > 0]=])
fe_bad_input(output_every_zero [=[output_every_zero\.xml:16: <output every="0">: every must be > 0]=])
fe_bad_input(bad_name [=[bad_name\.xml:3: <name>: 'bad/name' is not a valid output base name]=])
fe_bad_input(missing_mesh [=[missing_mesh\.xml:4: <mesh file="no_such_mesh\.msh">: mesh file '[^']*no_such_mesh\.msh' not found]=])
# the tracer
fe_bad_input(duplicate_initial [=[duplicate_initial\.xml:10: <initial>: given twice \(first at line 8\)]=])
fe_bad_input(missing_initial [=[missing_initial\.xml:7: <tracer>: missing <initial>]=])
fe_bad_input(duplicate_group [=[duplicate_group\.xml:11: <boundary physical="right left">: physical group 'left' already has a condition at line 10]=])
fe_bad_input(diffusivity_incomplete [=[diffusivity_incomplete\.xml:9: <diffusivity>: incomplete tensor: found xx yy]=])
fe_bad_input(diffusivity_both [=[diffusivity_both\.xml:9: <diffusivity>: both a scalar expression and tensor components]=])
# parameters and expressions
fe_bad_input(duplicate_param [=[duplicate_param\.xml:6: <param name="k">: parameter 'k' is already defined at line 5]=])
fe_bad_input(param_shadows_pi [=[param_shadows_pi\.xml:6: <param name="pi">: 'pi' is a reserved name]=])
fe_bad_input(expr_syntax [=[expr_syntax\.xml:8: <initial>: cannot parse expression '2x \+ y'; expected ]=])
fe_bad_input(expr_unknown_variable [=[expr_unknown_variable\.xml:8: <initial>: unknown variable 'w' in expression 'x\*w']=])
fe_bad_input(expr_unknown_function [=[expr_unknown_function\.xml:8: <initial>: unknown function 'cot' in expression 'cot\(x\)']=])
fe_bad_input(expr_bad_character [=[expr_bad_character\.xml:8: <initial>: unexpected character '\[' in expression]=])
