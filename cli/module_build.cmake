# The build identity of the CLI and its modules (src/module_files.hpp). The version alone let a
# provider module of another build with the same version in: a struct of core had gained a field,
# and the program crashed in ~backend_registration. So every module carries this string and the
# program runs none whose string differs. It changes with whatever decides how the program and a
# module see each other's objects: the version, the compiler and its flags, the text of core's
# public headers (the types that cross between them) and of the CLI's own headers (the config
# module's table and the options and plans it takes; the module interface of src/module_abi.hpp).
# It is derived from those inputs only, never from the time or a random number, so the same
# sources still give the same bytes.
#
# The header is written at build time (module_build_hash.cmake), when a core header changed, and
# only rewritten when the identity did, so only its includers recompile. The glob lists the hash's
# inputs, not sources to compile; CONFIGURE_DEPENDS notices a header added or removed.
file(GLOB_RECURSE module_build_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/include/*.hpp
  ${CMAKE_CURRENT_LIST_DIR}/src/*.hpp)
list(SORT module_build_headers)
string(TOUPPER "${CMAKE_BUILD_TYPE}" module_build_type)
set(module_build_flags "${CMAKE_CXX_STANDARD}|${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${module_build_type}}|sanitize=${SHEDLOCK_SANITIZE}")
set(module_build_inputs ${CMAKE_CURRENT_BINARY_DIR}/module_build_inputs.cmake)
file(CONFIGURE OUTPUT ${module_build_inputs} CONTENT [==[
set(VERSION [=[@PROJECT_VERSION@]=])
set(COMPILER [=[@CMAKE_CXX_COMPILER_ID@-@CMAKE_CXX_COMPILER_VERSION@]=])
set(FLAGS [=[@module_build_flags@]=])
set(SOURCE_DIR [=[@PROJECT_SOURCE_DIR@]=])
set(HEADERS [=[@module_build_headers@]=])
]==] @ONLY)
set(module_build_header ${CMAKE_CURRENT_BINARY_DIR}/generated/module_build.hpp)
set(module_build_stamp ${CMAKE_CURRENT_BINARY_DIR}/module_build.stamp)
add_custom_command(OUTPUT ${module_build_stamp}
  BYPRODUCTS ${module_build_header}
  COMMAND ${CMAKE_COMMAND} -DINPUTS=${module_build_inputs} -DTEMPLATE=${CMAKE_CURRENT_LIST_DIR}/src/module_build.hpp.in
    -DOUTPUT=${module_build_header} -P ${CMAKE_CURRENT_LIST_DIR}/module_build_hash.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${module_build_stamp}
  DEPENDS ${module_build_headers} ${module_build_inputs} ${CMAKE_CURRENT_LIST_DIR}/module_build_hash.cmake
    ${CMAKE_CURRENT_LIST_DIR}/src/module_build.hpp.in
  COMMENT "Build identity of the shedlock CLI and its modules"
  VERBATIM)
add_custom_target(shedlock_cli_module_build_header DEPENDS ${module_build_stamp})
# The header's include directory, for the program, its modules and the tests' foreign modules;
# linking it also orders their compilation after the header is written.
add_library(shedlock_cli_module_build INTERFACE)
target_include_directories(shedlock_cli_module_build INTERFACE ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_dependencies(shedlock_cli_module_build shedlock_cli_module_build_header)
