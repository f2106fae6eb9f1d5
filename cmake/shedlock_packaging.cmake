# Debian packages (docs/install.md): `cpack -G DEB` in a build directory, after the build, makes
#   libshedlock-dev  headers, static libraries, CMake package, pkg-config files  (component dev)
#   shedlock         the CLI, shedlock(1), /etc/shedlock/shedlock.toml (conffile) and
#                    shedlock.service                                          (component cli)
# with the project's version as package version. Included for a top-level build only: a project
# that add_subdirectory()s shedlock packages itself.

# The -dev package's Depends: what each built component declared (DEBIAN_DEPENDS), once each.
function(_shedlock_dev_depends out)
  get_property(depends GLOBAL PROPERTY SHEDLOCK_DEBIAN_DEPENDS)
  list(REMOVE_DUPLICATES depends)
  list(SORT depends)
  list(JOIN depends ", " joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

function(shedlock_configure_packages)
  # The library package carries archives only: a shared build would need a runtime package
  # (libshedlock0) that the CLI depends on, which is not made here.
  if(BUILD_SHARED_LIBS)
    message(STATUS "Debian packages: not configured for BUILD_SHARED_LIBS=ON (static libraries only)")
    return()
  endif()
  # The CLI's library Depends come from dpkg-shlibdeps (CPack finds the binaries with `file`);
  # without them the package would claim to need nothing.
  find_program(SHEDLOCK_DPKG_SHLIBDEPS dpkg-shlibdeps)
  find_program(SHEDLOCK_FILE_COMMAND file)
  if(NOT SHEDLOCK_DPKG_SHLIBDEPS OR NOT SHEDLOCK_FILE_COMMAND)
    message(STATUS "Debian packages: not configured (needs dpkg-shlibdeps and file; apt-get install dpkg-dev file)")
    return()
  endif()
  set(SHEDLOCK_PACKAGE_MAINTAINER "shedlock-cpp maintainers <maintainers@users.noreply.a-seed-4d592f41.example>"
    CACHE STRING "Maintainer field of the Debian packages")

  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME shedlock)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGE_CONTACT "${SHEDLOCK_PACKAGE_MAINTAINER}")
  # DESTDIR staging: the install code sees CMAKE_INSTALL_PREFIX=/usr (the pkg-config prefix is
  # written from it), and the absolute /etc and /lib/systemd destinations land in the package.
  set(CPACK_SET_DESTDIR ON)
  set(CPACK_INSTALL_PREFIX /usr)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_STRIP_FILES ON)  # the binary; CMake never strips static archives
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL dev)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

  set(CPACK_DEBIAN_DEV_PACKAGE_NAME libshedlock-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
  _shedlock_dev_depends(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS)
  # CPack puts PROJECT_DESCRIPTION first, as the synopsis of both packages.
  set(CPACK_COMPONENT_DEV_DESCRIPTION "C++20 development files of shedlock-cpp: headers, static libraries,
the CMake package (find_package(shedlock CONFIG COMPONENTS ...)) and pkg-config
files (shedlock-<component>). Named lease locks in SQLite, PostgreSQL,
MySQL/MariaDB or Redis, so that a task scheduled on many hosts runs on one of
them, and a scheduler that uses them.")

  if(TARGET shedlock_cli)
    list(APPEND CPACK_COMPONENTS_ALL cli)
    set(CPACK_DEBIAN_CLI_PACKAGE_NAME shedlock)
    set(CPACK_DEBIAN_CLI_PACKAGE_SECTION admin)
    set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
    # The modules have no RUNPATH (cli/module_targets.cmake): dpkg-shlibdeps finds the private
    # libshedlock-core.so they need in the package's own tree (it runs in the package root).
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/shedlock")
    string(REGEX REPLACE "^/" "" CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS}")
    set(dist ${PROJECT_SOURCE_DIR}/cli/dist/debian)
    set(CPACK_DEBIAN_CLI_PACKAGE_CONTROL_EXTRA ${dist}/conffiles ${dist}/postinst ${dist}/prerm ${dist}/postrm)
    set(CPACK_COMPONENT_CLI_DESCRIPTION "The shedlock command: shedlock run wraps a crontab line so that it runs
on one host of many; shedlock daemon is a distributed cron (shedlock.service,
configured in /etc/shedlock/shedlock.toml); shedlock locks, runs, schema,
doctor and bench inspect and administer the lock store (SQLite, PostgreSQL,
MySQL/MariaDB, Redis).")
  endif()
  include(CPack)
  set_property(GLOBAL PROPERTY SHEDLOCK_DEB_PACKAGES ON)  # tests/install tests them
endfunction()

shedlock_configure_packages()
