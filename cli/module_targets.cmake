# The one shared core of the CLI and its plug-in modules (cli/src/module_abi.hpp), and how a module
# is linked against it. Included by cli/CMakeLists.txt after the layout variables are set.
#
# shedlock_cli_core is libshedlock-core.so.<ABI> in <libdir>/shedlock (a private directory: the
# installed CMake package and shedlock::core stay static). It is made from shedlock::core's own
# objects, so nothing is compiled twice. The CLI, the config module and every provider module link
# it, so one process holds one copy of core: one provider registry (a module registers into the
# program's), one logger, one set of types. It exports every core symbol (core's default
# visibility), and a module's uses of core's inline functions bind to it too.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/src/module_abi.hpp module_abi_line REGEX "^#define SHEDLOCK_MODULE_ABI [0-9]+$")
string(REGEX REPLACE ".* " "" SHEDLOCK_MODULE_ABI "${module_abi_line}")
if(NOT SHEDLOCK_MODULE_ABI)
  message(FATAL_ERROR "cli/src/module_abi.hpp: no #define SHEDLOCK_MODULE_ABI <number>")
endif()

# A module links the libraries its components link (shedlock_cli_module_parts). Their imported
# targets are local to each component's folder, except the pkg-config ones (GLOBAL): found again
# here, as the components found them.
if(TARGET shedlock_sqlite)
  find_package(SQLiteCpp QUIET)
endif()
if(TARGET shedlock_scheduler)
  find_package(Boost 1.74 QUIET)
  find_package(date CONFIG QUIET)
endif()
if(TARGET shedlock_config)
  find_package(tomlplusplus CONFIG QUIET)
endif()

# core_build.cpp adds the build identity, which the program checks before it loads a module.
add_library(shedlock_cli_core SHARED $<TARGET_OBJECTS:shedlock_core> ${CMAKE_CURRENT_LIST_DIR}/src/core_build.cpp)
set_target_properties(shedlock_cli_core PROPERTIES OUTPUT_NAME shedlock-core
  SOVERSION ${SHEDLOCK_MODULE_ABI} VERSION ${SHEDLOCK_MODULE_ABI}
  LIBRARY_OUTPUT_DIRECTORY ${cli_private_build_dir} INSTALL_RPATH "")
target_include_directories(shedlock_cli_core PUBLIC $<TARGET_PROPERTY:shedlock_core,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_features(shedlock_cli_core PUBLIC cxx_std_20)
target_link_libraries(shedlock_cli_core PUBLIC Threads::Threads PRIVATE shedlock_cli_module_build)
target_link_options(shedlock_cli_core PRIVATE -Wl,--no-undefined)
install(TARGETS shedlock_cli_core LIBRARY DESTINATION ${cli_private_install_dir} COMPONENT cli NAMELINK_SKIP)

# shedlock_cli_module_parts(<components> <objects var> <links var> <targets var>): what a module
# made of the shedlock components <components> (e.g. sqlite) links instead of their static
# libraries: the objects of them and of every shedlock component they need, except core's (the
# shared core has them), and the other libraries they link (SQLiteCpp, libpq, ...). Linking
# shedlock::<component> itself would bring a second, static copy of core along (its transitive
# link). <targets var>: the components whose headers and definitions the module's own sources use.
function(shedlock_cli_module_parts components objects_var links_var usage_var)
  set(objects "")
  set(links "")
  list(TRANSFORM components PREPEND shedlock_ OUTPUT_VARIABLE pending)
  set(seen "")
  set(usage "")
  get_property(known_components GLOBAL PROPERTY SHEDLOCK_COMPONENTS)
  while(pending)
    list(POP_FRONT pending target)
    if(target IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${target})
    list(APPEND objects $<TARGET_OBJECTS:${target}>)
    list(APPEND usage ${target})
    get_target_property(items ${target} LINK_LIBRARIES)
    foreach(item IN LISTS items)
      # A component by its alias (shedlock::sql) or its target name (shedlock_sql).
      set(name "")
      if(item MATCHES "^shedlock::(.+)$" OR item MATCHES "^shedlock_(.+)$")
        set(name ${CMAKE_MATCH_1})
      endif()
      if(name AND name IN_LIST known_components)
        if(NOT name STREQUAL "core")
          list(APPEND pending shedlock_${name})
        endif()
      elseif(item)
        list(APPEND links ${item})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES links)
  set(${objects_var} ${objects} PARENT_SCOPE)
  set(${links_var} ${links} PARENT_SCOPE)
  set(${usage_var} ${usage} PARENT_SCOPE)
endfunction()

# shedlock_cli_module(<target> <output dir> <components> SOURCES ...): a plug-in module made of
# SOURCES and the components' objects (shedlock_cli_module_parts), linked against the shared core.
# No RUNPATH: the module needs only libshedlock-core.so.<ABI> of its own, which the program has
# loaded before any module (the dynamic loader reuses it by soname). A RUNPATH relative to the
# module ($ORIGIN/..) named /proc/self when the module was mapped through /proc/self/fd/N, and
# without /proc the parent of SHEDLOCK_PROVIDER_DIR, where any library planted there (a
# libsqlite3.so.0) was loaded. dpkg-shlibdeps finds the core through
# CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS (cmake/shedlock_packaging.cmake).
function(shedlock_cli_module target output_dir components)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  shedlock_cli_module_parts("${components}" objects links components)
  add_library(${target} MODULE ${ARG_SOURCES} ${objects})
  foreach(used IN LISTS components)
    target_include_directories(${target} PRIVATE $<TARGET_PROPERTY:${used},INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(${target} PRIVATE $<TARGET_PROPERTY:${used},INTERFACE_COMPILE_DEFINITIONS>)
  endforeach()
  set_target_properties(${target} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${output_dir}
    CXX_VISIBILITY_PRESET hidden INSTALL_RPATH "" BUILD_WITH_INSTALL_RPATH ON)
  target_link_libraries(${target} PRIVATE shedlock_cli_core ${links} shedlock_cli_module_build)
  # Every symbol resolved when linked; the archives of other libraries stay private to the module.
  target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  shedlock_warnings(${target})
  add_dependencies(shedlock_cli ${target})
endfunction()
