# pkg-config files: one per component, shedlock-<name>.pc, with the same dependency graph as the
# CMake package (shedlock-sqlite requires shedlock-sql requires shedlock-core).
#
#   shedlock_install_pkg_config(<name> [REQUIRES <component>...] [PKG_CONFIG_REQUIRES <module>...]
#                               [PKG_CONFIG_LIBS <flag>...])
#
# A static library carries no record of what it links, so for a static build the client
# libraries go into Requires/Libs (a plain `pkg-config --libs` must name them); for a shared one
# into Requires.private/Libs.private.
#
# prefix= is written at install time, from the prefix the installation really uses
# (`cmake --install --prefix`, CPack's /usr), not from CMAKE_INSTALL_PREFIX at configure time.
# It stays absolute on purpose: a ${pcfiledir}-relative prefix would turn /usr/include into a
# non-system -I path and break #include_next in the C++ standard headers.

# <out> = <dir> made absolute against the install-time prefix, as text for the .pc file
# (${prefix}/...) or for install code (\${CMAKE_INSTALL_PREFIX}/...).
function(_shedlock_pc_dir dir prefix_ref out)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${prefix_ref}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

function(shedlock_install_pkg_config name)
  cmake_parse_arguments(ARG "" "" "REQUIRES;PKG_CONFIG_REQUIRES;PKG_CONFIG_LIBS" ${ARGN})
  set(components "")
  foreach(c IN LISTS ARG_REQUIRES)
    list(APPEND components shedlock-${c})
  endforeach()
  get_target_property(type shedlock_${name} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    set(requires ${components} ${ARG_PKG_CONFIG_REQUIRES})
    set(libs ${ARG_PKG_CONFIG_LIBS})
  else()
    set(requires ${components})
    set(requires_private ${ARG_PKG_CONFIG_REQUIRES})
    set(libs_private ${ARG_PKG_CONFIG_LIBS})
  endif()
  list(JOIN requires ", " PC_REQUIRES)
  list(JOIN requires_private ", " PC_REQUIRES_PRIVATE)
  list(JOIN libs " " PC_LIBS)
  list(JOIN libs_private " " PC_LIBS_PRIVATE)
  set(PC_NAME ${name})
  set(PC_PREFIX "@PC_PREFIX@")  # kept as a placeholder here, filled in by the install code below
  _shedlock_pc_dir("${CMAKE_INSTALL_LIBDIR}" "\${prefix}" PC_LIBDIR)
  _shedlock_pc_dir("${CMAKE_INSTALL_INCLUDEDIR}" "\${prefix}" PC_INCLUDEDIR)
  set(stage ${PROJECT_BINARY_DIR}/pkgconfig/shedlock-${name}.pc.in)
  set(final ${PROJECT_BINARY_DIR}/pkgconfig/install/shedlock-${name}.pc)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/shedlock.pc.in ${stage} @ONLY)
  _shedlock_pc_dir("${CMAKE_INSTALL_LIBDIR}/pkgconfig" "\${CMAKE_INSTALL_PREFIX}" destination)
  install(CODE "
    set(PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${stage}\" \"${final}\" @ONLY)
    file(INSTALL \"${final}\" DESTINATION \"${destination}\")"
    COMPONENT dev)
endfunction()
