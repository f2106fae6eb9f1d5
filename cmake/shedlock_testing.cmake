# The functions that register shedlock's tests, included from tests/CMakeLists.txt. They link the
# libraries defined there: shedlock_test_main (Catch2's main), shedlock_conformance (the provider
# conformance suite), shedlock_run_store_conformance (the run-store suite) and
# shedlock_test_support (scratch dirs, server control, the start-up race: tests/support/).

# shedlock_test(<name> SOURCES ... LINK ... [LABELS ...] [ENVIRONMENT ...] [PREFIX ...] [RUN_SERIAL]
#               [IN_PROCESS] [EXCLUDE_TAGS ...])
# One Catch2 program; each TEST_CASE becomes its own ctest test named <prefix><case>.
# RUN_SERIAL: its tests run with nothing beside them (timing that other tests' load would upset).
# IN_PROCESS: the storage under test lives inside one process (memory), so the cases tagged
# [processes] (separate processes contending) cannot apply: they are not registered, and a
# disabled test "<prefix>multi-process cases: not applicable (in-process storage)" says so in
# every ctest summary instead of a case that passes with no assertion.
# EXCLUDE_TAGS: Catch2 tags (without brackets) whose cases this registration leaves out.
# Called again with a PREFIX for a program that exists (and another ENVIRONMENT), it registers
# the same program's cases once more without building it again.
function(shedlock_test name)
  cmake_parse_arguments(ARG "RUN_SERIAL;IN_PROCESS" "PREFIX" "SOURCES;LINK;LABELS;ENVIRONMENT;EXCLUDE_TAGS" ${ARGN})
  list(APPEND ARG_ENVIRONMENT "SHEDLOCK_TEST_TMPDIR=${CMAKE_CURRENT_BINARY_DIR}/tmp")
  set(extra_args --warn NoTests)
  if(TARGET ${name} AND ARG_PREFIX)
    # catch_discover_tests names its generated files after the target and a hash of the
    # arguments: another run of the same program needs arguments of its own (a suite name).
    list(APPEND extra_args --name "${ARG_PREFIX}")
  endif()
  if(NOT TARGET ${name})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${name} PRIVATE shedlock_test_main ${ARG_LINK})
    shedlock_warnings(${name})
  endif()
  if(NOT ARG_PREFIX)
    set(ARG_PREFIX "${name}: ")
  endif()
  # catch_discover_tests cannot pass a list-valued property, so several labels become one
  # ("conformance-redis"); ctest -L takes a regex, so -L conformance and -L redis both match it.
  string(REPLACE ";" "-" labels "${ARG_LABELS}")
  set(serial FALSE)
  if(ARG_RUN_SERIAL)
    set(serial TRUE)
  endif()
  # --warn NoTests: a test whose name filter matches no case fails instead of passing empty
  # (a ';' in a TEST_CASE name splits it into a CMake list, and such cases silently never ran).
  # (A case without a single assertion fails in every program: tests/support/catch_main.cpp.)
  set(spec "")
  set(excluded "")
  foreach(tag IN LISTS ARG_EXCLUDE_TAGS)
    string(APPEND excluded "~[${tag}]")
  endforeach()
  if(excluded)
    set(spec TEST_SPEC "${excluded}")
  endif()
  if(ARG_IN_PROCESS)
    set(spec TEST_SPEC "~[processes]${excluded}")
    add_test(NAME "${ARG_PREFIX}multi-process cases: not applicable (in-process storage)" COMMAND ${name} "[processes]")
    set_tests_properties("${ARG_PREFIX}multi-process cases: not applicable (in-process storage)" PROPERTIES
      DISABLED TRUE LABELS "${labels}")
  endif()
  catch_discover_tests(${name} TEST_PREFIX "${ARG_PREFIX}" ${spec} EXTRA_ARGS ${extra_args}
    PROPERTIES LABELS "${labels}" ENVIRONMENT "${ARG_ENVIRONMENT}" RUN_SERIAL ${serial})
endfunction()

# A provider's conformance programs: the suite (whole archive) plus the backend definition, one
# program per mode (the mode is compiled in, so each ctest name says what it ran).
# With shedlock::asio, the same programs run the cases once more through the backend's
# asynchronous interface (tests/conformance/async/, SHEDLOCK_CONFORMANCE_INTERFACE), as ctest
# entries <program>_awaitable: and <program>_callbacks:, label `async`. The interface is
# independent of the mode, so each interface runs on one mode only: use_awaitable on the first
# (with the model test), callbacks on the second (the first when there is one; without the model
# test, which awaitable already drives). DRIVER: the backend's non-blocking driver target
# (shedlock::<name>_asio), linked with SHEDLOCK_TEST_ASYNC_DRIVER=1 so that its backend file
# overrides make_async_service with it.
function(shedlock_conformance_test name)
  cmake_parse_arguments(ARG "IN_PROCESS" "DRIVER" "SOURCES;LINK;LABELS;MODES" ${ARGN})
  set(in_process "")
  if(ARG_IN_PROCESS)
    set(in_process IN_PROCESS)
  endif()
  if(NOT ARG_MODES)
    set(ARG_MODES default)
  endif()
  foreach(mode IN LISTS ARG_MODES)
    set(target ${name})
    if(NOT mode STREQUAL "default")
      set(target ${name}_${mode})
    endif()
    add_executable(${target} ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/test_mode.cpp)
    target_compile_definitions(${target} PRIVATE SHEDLOCK_TEST_MODE_DEFAULT="${mode}")
    target_link_libraries(${target} PRIVATE shedlock_test_main
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,shedlock_conformance>" ${ARG_LINK})
    if(ARG_DRIVER AND TARGET ${ARG_DRIVER})
      target_link_libraries(${target} PRIVATE ${ARG_DRIVER})
      target_compile_definitions(${target} PRIVATE SHEDLOCK_TEST_ASYNC_DRIVER=1)
    endif()
    shedlock_warnings(${target})
    shedlock_test(${target} LABELS "conformance;${ARG_LABELS}" ${in_process})
  endforeach()
  if(NOT TARGET shedlock::asio)
    return()
  endif()
  list(GET ARG_MODES 0 awaitable_mode)
  set(callbacks_mode ${awaitable_mode})
  list(LENGTH ARG_MODES mode_count)
  if(mode_count GREATER 1)
    list(GET ARG_MODES 1 callbacks_mode)
  endif()
  foreach(interface awaitable callbacks)
    set(target ${name})
    if(NOT ${interface}_mode STREQUAL "default")
      set(target ${name}_${${interface}_mode})
    endif()
    set(exclude "")
    set(interface_labels conformance ${ARG_LABELS} async)
    if(interface STREQUAL "callbacks")
      set(exclude EXCLUDE_TAGS model)
      # Label `callbacks`: `ctest -L callbacks` (or -LE) selects these runs alone.
      list(APPEND interface_labels callbacks)
    endif()
    shedlock_test(${target} PREFIX "${target}_${interface}: " LABELS "${interface_labels}"
      ENVIRONMENT "SHEDLOCK_CONFORMANCE_INTERFACE=${interface}" ${in_process} ${exclude})
  endforeach()
endfunction()

# A Catch2 program registered as ONE ctest test with RUN_SERIAL: for tests that stop the
# shared test servers or read server-wide state, which parallel tests would disturb.
function(shedlock_serial_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE shedlock_test_main ${ARG_LINK})
  shedlock_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE LABELS "${ARG_LABELS}" TIMEOUT 300
    ENVIRONMENT "SHEDLOCK_TEST_TMPDIR=${CMAKE_CURRENT_BINARY_DIR}/tmp")
endfunction()

# shedlock_provider_tests(<name> CONFORMANCE_SOURCES ... [MODES ...] TESTS ... [PROGRAM <target>]
#                         [RUN_STORE] [IDEMPOTENCY] [IN_PROCESS] [LINK ...] [LABELS ...])
# A provider's tests, called once from providers/<name>/tests/CMakeLists.txt:
# - conformance_<name> (conformance_<name>_<mode> for each of MODES): the conformance suite plus
#   CONFORMANCE_SOURCES, which define the backend under test; labels `conformance` and LABELS;
# - <name>_test (or PROGRAM): the provider's own tests, TESTS; RUN_STORE links the run-store
#   suite too (TESTS then define make_run_store_backend()); labels LABELS, or `unit` when the
#   provider gives none (it needs no server); IDEMPOTENCY links the idempotency-store suite
#   (TESTS then define make_idempotency_backend()).
# Both link shedlock::<name>, shedlock_test_support and LINK. LABELS name the server a provider
# needs (`redis`), so that -L/-LE select its tests. IN_PROCESS: the backend's storage lives in one
# process (memory): both programs leave out the [processes] cases (see shedlock_test()).
function(shedlock_provider_tests name)
  cmake_parse_arguments(ARG "RUN_STORE;IDEMPOTENCY;IN_PROCESS" "PROGRAM" "CONFORMANCE_SOURCES;MODES;TESTS;LINK;LABELS" ${ARGN})
  set(link shedlock::${name} shedlock_test_support ${ARG_LINK})
  set(in_process "")
  if(ARG_IN_PROCESS)
    set(in_process IN_PROCESS)
  endif()
  shedlock_conformance_test(conformance_${name} SOURCES ${ARG_CONFORMANCE_SOURCES} LINK ${link}
    LABELS ${ARG_LABELS} MODES ${ARG_MODES} ${in_process} DRIVER shedlock::${name}_asio)
  if(NOT ARG_PROGRAM)
    set(ARG_PROGRAM ${name}_test)
  endif()
  if(ARG_RUN_STORE)
    list(APPEND link "$<LINK_LIBRARY:WHOLE_ARCHIVE,shedlock_run_store_conformance>")
  endif()
  if(ARG_IDEMPOTENCY)
    list(APPEND link "$<LINK_LIBRARY:WHOLE_ARCHIVE,shedlock_idempotency_conformance>")
  endif()
  set(labels ${ARG_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  shedlock_test(${ARG_PROGRAM} SOURCES ${ARG_TESTS} LINK ${link} LABELS ${labels} ${in_process})
endfunction()
