# find_package(ShedlockPkg COMPONENTS <pkg-config module>...): one imported target per module,
# PkgConfig::shedlock_<module> (non-identifier characters as '_'), from the module's .pc file.
# Used by the providers in this tree and by the installed package's config (find_dependency), so
# an installed shedlock names its client libraries by target, never by an absolute path, and a
# consumer finds them wherever its own system keeps them.
find_package(PkgConfig QUIET)
foreach(_shedlock_module IN LISTS ShedlockPkg_FIND_COMPONENTS)
  string(MAKE_C_IDENTIFIER "${_shedlock_module}" _shedlock_id)
  set(ShedlockPkg_${_shedlock_module}_FOUND FALSE)
  if(TARGET PkgConfig::shedlock_${_shedlock_id})
    set(ShedlockPkg_${_shedlock_module}_FOUND TRUE)
  elseif(PKG_CONFIG_FOUND)
    pkg_check_modules(shedlock_${_shedlock_id} QUIET IMPORTED_TARGET GLOBAL ${_shedlock_module})
    if(TARGET PkgConfig::shedlock_${_shedlock_id})
      set(ShedlockPkg_${_shedlock_module}_FOUND TRUE)
    endif()
  endif()
endforeach()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ShedlockPkg HANDLE_COMPONENTS REQUIRED_VARS PKG_CONFIG_EXECUTABLE)
