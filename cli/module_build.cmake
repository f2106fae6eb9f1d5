# The build identity of the CLI and its modules (src/module_files.hpp). The version alone let a
# provider module of another build with the same version in: a struct of core had gained a field,
# and the program crashed in ~backend_registration. So every module carries this string and the
# program runs none whose string differs. It changes with whatever decides how the program and a
# module see each other's objects: the version, the compiler and its flags, and the text of core's
# public headers (the types that cross between them). It is derived from those inputs only, never
# from the time or a random number, so the same sources still give the same bytes.
#
# The headers are found by a glob for the hash's input, not for sources to compile:
# CONFIGURE_DEPENDS re-runs the configure when one is added or edited, which regenerates the id.
file(GLOB_RECURSE module_build_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/include/*.hpp)
list(SORT module_build_headers)
string(TOUPPER "${CMAKE_BUILD_TYPE}" module_build_type)
set(module_build_input "${PROJECT_VERSION}|${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}|${CMAKE_CXX_STANDARD}|"
  "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${module_build_type}}|sanitize=${SHEDLOCK_SANITIZE}")
foreach(header IN LISTS module_build_headers)
  file(RELATIVE_PATH name ${PROJECT_SOURCE_DIR} ${header})
  file(READ ${header} text)
  string(APPEND module_build_input "|${name}|${text}")
endforeach()
string(SHA256 module_build_hash "${module_build_input}")
string(SUBSTRING ${module_build_hash} 0 20 module_build_hash)
set(SHEDLOCK_MODULE_BUILD "${PROJECT_VERSION} ${CMAKE_CXX_COMPILER_ID}-${CMAKE_CXX_COMPILER_VERSION} ${module_build_hash}")
# configure_file rewrites the header only when the id changed: only its includers recompile.
configure_file(${CMAKE_CURRENT_LIST_DIR}/src/module_build.hpp.in ${CMAKE_CURRENT_BINARY_DIR}/generated/module_build.hpp @ONLY)
# Its include directory, for the program, its modules and the tests' deliberately foreign modules.
add_library(shedlock_cli_module_build INTERFACE)
target_include_directories(shedlock_cli_module_build INTERFACE ${CMAKE_CURRENT_BINARY_DIR}/generated)
