# One helper defines every library of shedlock: core, the SQL layer, each provider, scheduler.
#
#   shedlock_add_component(<name> SOURCES ... [PUBLIC_LINK ...] [PRIVATE_LINK ...]
#                          [FIND_DEPENDENCIES "<find_dependency args>" ...] [REQUIRES <component>...]
#                          [PKG_CONFIG_REQUIRES <module>...] [PKG_CONFIG_LIBS <flag>...]
#                          [DEBIAN_DEPENDS <package>...])
#
# creates target shedlock_<name> with alias shedlock::<name> (the name consumers use, both with
# add_subdirectory and with find_package), public headers in <dir>/include, installed with its
# own export set (install component "dev"), and records what an installed copy must find before
# loading it: for find_package (FIND_DEPENDENCIES), for its pkg-config file shedlock-<name>.pc
# (PKG_CONFIG_REQUIRES: modules with a .pc file; PKG_CONFIG_LIBS: link flags for libraries without
# one) and for the Debian package libshedlock-dev (DEBIAN_DEPENDS: the -dev packages it needs).

set_property(GLOBAL PROPERTY SHEDLOCK_COMPONENTS "")
set_property(GLOBAL PROPERTY SHEDLOCK_DEBIAN_DEPENDS "")
include(${CMAKE_CURRENT_LIST_DIR}/shedlock_pkg_config.cmake)

option(SHEDLOCK_WERROR "Treat warnings as errors (CI)" OFF)

function(shedlock_warnings target)
  if(SHEDLOCK_TOP_LEVEL)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic $<$<BOOL:${SHEDLOCK_WERROR}>:-Werror>)
  endif()
endfunction()

function(shedlock_add_component name)
  cmake_parse_arguments(ARG "" ""
    "SOURCES;PUBLIC_LINK;PRIVATE_LINK;FIND_DEPENDENCIES;REQUIRES;PKG_CONFIG_REQUIRES;PKG_CONFIG_LIBS;DEBIAN_DEPENDS"
    ${ARGN})
  set(target shedlock_${name})
  add_library(${target} ${ARG_SOURCES})
  add_library(shedlock::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_LINK} PRIVATE ${ARG_PRIVATE_LINK})
  shedlock_warnings(${target})

  install(TARGETS ${target} EXPORT shedlock-${name}-targets COMPONENT dev
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
  install(EXPORT shedlock-${name}-targets NAMESPACE shedlock:: COMPONENT dev
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/shedlock)
  shedlock_install_pkg_config(${name} REQUIRES ${ARG_REQUIRES}
    PKG_CONFIG_REQUIRES ${ARG_PKG_CONFIG_REQUIRES} PKG_CONFIG_LIBS ${ARG_PKG_CONFIG_LIBS})

  set_property(GLOBAL APPEND PROPERTY SHEDLOCK_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY SHEDLOCK_${name}_FIND "${ARG_FIND_DEPENDENCIES}")
  set_property(GLOBAL PROPERTY SHEDLOCK_${name}_REQUIRES "${ARG_REQUIRES}")
  set_property(GLOBAL APPEND PROPERTY SHEDLOCK_DEBIAN_DEPENDS ${ARG_DEBIAN_DEPENDS})
endfunction()

# shedlock_register_provider(<name> SCHEMES <scheme>...): the provider defines
#   void shedlock::providers::register_<name>_provider(shedlock::provider_registry&)
# registering exactly these URI schemes, and joins the generated umbrella (target shedlock::all,
# register_all_providers()) and the CLI's plug-in modules (cli/CMakeLists.txt: the CLI declares
# the schemes and loads the module when a URI names one; it refuses a module that registers
# others). Adding a backend therefore touches only its own folder.
function(shedlock_register_provider name)
  cmake_parse_arguments(ARG "" "" "SCHEMES" ${ARGN})
  if(NOT ARG_SCHEMES)
    message(FATAL_ERROR "shedlock_register_provider(${name}): SCHEMES is missing (the URI schemes it registers)")
  endif()
  set_property(GLOBAL APPEND PROPERTY SHEDLOCK_REGISTERED_PROVIDERS ${name})
  set_property(GLOBAL PROPERTY SHEDLOCK_${name}_SCHEMES ${ARG_SCHEMES})
endfunction()

# shedlock_switch(<variable> <found> <description> <hint>): reads the cache variable <variable>
# (ON|OFF|AUTO, default AUTO) and sets <variable>_ENABLED in the caller: ON builds it or fails the
# configure naming what is missing (<hint>), AUTO builds it when <found> is true, OFF never does.
function(shedlock_switch variable found description hint)
  if(NOT DEFINED CACHE{${variable}})
    set(${variable} AUTO CACHE STRING "${description}: ON, OFF or AUTO")
  endif()
  set_property(CACHE ${variable} PROPERTY STRINGS ON OFF AUTO)
  string(TOUPPER "${${variable}}" value)
  if(value MATCHES "^(TRUE|YES|1)$")
    set(value ON)
  elseif(value MATCHES "^(FALSE|NO|0)$")
    set(value OFF)
  endif()
  if(NOT value MATCHES "^(ON|OFF|AUTO)$")
    message(FATAL_ERROR "${variable}=\"${${variable}}\" is not ON, OFF or AUTO")
  endif()
  if(value STREQUAL "OFF")
    set(with OFF)
  elseif(${found})
    set(with ON)
  elseif(value STREQUAL "ON")
    message(FATAL_ERROR "${variable}=ON but ${hint}; install it (see scripts/install-deps.sh) or set ${variable}=AUTO")
  else()
    set(with OFF)
  endif()
  set(${variable}_ENABLED ${with} PARENT_SCOPE)
endfunction()

# shedlock_provider_option(<NAME> <found>): SHEDLOCK_PROVIDER_<NAME> (ON|OFF|AUTO); sets
# SHEDLOCK_WITH_<NAME> in the caller.
function(shedlock_provider_option name found)
  shedlock_switch(SHEDLOCK_PROVIDER_${name} ${found} "Build the ${name} provider" "its client library was not found")
  set(SHEDLOCK_WITH_${name} ${SHEDLOCK_PROVIDER_${name}_ENABLED} PARENT_SCOPE)
  set_property(GLOBAL APPEND PROPERTY SHEDLOCK_PROVIDER_SUMMARY "${name}=${SHEDLOCK_PROVIDER_${name}_ENABLED}")
endfunction()

function(shedlock_install_package)
  include(CMakePackageConfigHelpers)
  get_property(components GLOBAL PROPERTY SHEDLOCK_COMPONENTS)
  set(SHEDLOCK_COMPONENT_TABLE "")
  foreach(c IN LISTS components)
    get_property(find GLOBAL PROPERTY SHEDLOCK_${c}_FIND)
    get_property(requires GLOBAL PROPERTY SHEDLOCK_${c}_REQUIRES)
    string(APPEND SHEDLOCK_COMPONENT_TABLE "set(_shedlock_${c}_find \"${find}\")\n")
    string(APPEND SHEDLOCK_COMPONENT_TABLE "set(_shedlock_${c}_requires \"${requires}\")\n")
  endforeach()
  set(SHEDLOCK_AVAILABLE_COMPONENTS "${components}")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/shedlockConfig.cmake.in
    ${PROJECT_BINARY_DIR}/shedlockConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/shedlock)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/shedlockConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/shedlockConfig.cmake ${PROJECT_BINARY_DIR}/shedlockConfigVersion.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/shedlock COMPONENT dev)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/modules/FindShedlockPkg.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/shedlock/modules COMPONENT dev)
endfunction()

function(shedlock_print_summary)
  get_property(components GLOBAL PROPERTY SHEDLOCK_COMPONENTS)
  get_property(providers GLOBAL PROPERTY SHEDLOCK_PROVIDER_SUMMARY)
  string(REPLACE ";" " " components "${components}")
  string(REPLACE ";" " " providers "${providers}")
  get_property(deb GLOBAL PROPERTY SHEDLOCK_DEB_PACKAGES)
  if(NOT deb)
    set(deb OFF)
  endif()
  message(STATUS "shedlock ${PROJECT_VERSION}: components [${components}] providers [${providers}] "
                 "tests=${SHEDLOCK_BUILD_TESTS} sanitize=[${SHEDLOCK_SANITIZE}] deb-packages=${deb}")
endfunction()
