# ctest cli_modules_share_one_core: cmake -DNM=... -DCORE=<libshedlock-core.so> -DMODULES=<a;b;...> -P this
# Each plug-in module of the CLI links the one shared core instead of holding a copy of core
# (issue 22): the core defines the process's provider registry (provider_registry::global() and
# its static), and no module defines either. A module linked from shedlock::<provider>'s static
# library would carry a second copy of core, registry included, and fail here.
set(registry_symbol "_ZN8shedlock17provider_registry6globalEv")
function(defined_symbols file out)
  execute_process(COMMAND ${NM} --defined-only ${file} OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} --defined-only ${file} failed (${status})")
  endif()
  set(${out} "${symbols}" PARENT_SCOPE)
endfunction()
defined_symbols(${CORE} core_symbols)
string(FIND "${core_symbols}" " T ${registry_symbol}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${CORE} does not define provider_registry::global() (${registry_symbol})")
endif()
foreach(module IN LISTS MODULES)
  defined_symbols(${module} symbols)
  string(FIND "${symbols}" "${registry_symbol}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${module} defines provider_registry::global(): it carries a copy of core of its own")
  endif()
endforeach()
list(LENGTH MODULES count)
message(STATUS "${count} modules share ${CORE}")
