# cmake -P script: fails if a Catch2 TEST_CASE name holds a ';'. shedlock_test() registers each
# case as a ctest entry through a CMake list, where ';' splits the name in two; both halves then
# match no case and fail on --warn NoTests (it happened twice: a FIFO password case, a cluster
# options case). Caught here, before anything is built or run.
file(GLOB_RECURSE sources "${SOURCE_DIR}/*/tests/*.cpp" "${SOURCE_DIR}/tests/*.cpp" "${SOURCE_DIR}/providers/*/tests/*.cpp")
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "TEST_CASE\\(\"[^\"]*;")
  if(lines)
    list(APPEND bad "${source}")
  endif()
endforeach()
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no test sources found under ${SOURCE_DIR}")
endif()
if(bad)
  list(REMOVE_DUPLICATES bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "TEST_CASE names with a semicolon (write \" and \" instead) in:\n${bad}")
endif()
message(STATUS "${count} test sources, no TEST_CASE name holds a ';'")
