# cmake -P script: a consumer that adds shedlock's source tree with add_subdirectory and links the
# same shedlock:: targets as an installed-package consumer; configure, build (only what the
# consumer links), run.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

# A switch that is not ON, OFF or AUTO fails the configure, naming it.
file(REMOVE_RECURSE ${CONSUMER_BUILD})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR}
                  -DSHEDLOCK_SOURCE=${SOURCE} -DSHEDLOCK_BUILD_CONFIG=maybe
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "SHEDLOCK_BUILD_CONFIG=\"maybe\" is not ON, OFF or AUTO")
  message(FATAL_ERROR "SHEDLOCK_BUILD_CONFIG=maybe was accepted (${rc}):\n${out}\n${err}")
endif()

# Locks only: no scheduler (so no Boost or date/tz), hence no config and no CLI either. Unoptimised
# and without debug information: the test is about targets and linking, not code.
file(REMOVE_RECURSE ${CONSUMER_BUILD})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR}
                  -DSHEDLOCK_SOURCE=${SOURCE} -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g0"
                  -DSHEDLOCK_BUILD_SCHEDULER=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed (${rc}):\n${out}\n${err}")
endif()
foreach(skipped "scheduler: not built" "config: not built" "CLI: not built")
  if(NOT out MATCHES "${skipped}")
    message(FATAL_ERROR "expected \"${skipped}\" with SHEDLOCK_BUILD_SCHEDULER=OFF:\n${out}")
  endif()
endforeach()
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD} --target consumer -j2)
run(${CONSUMER_BUILD}/consumer ${CONSUMER_BUILD}/consumer.db)
message(STATUS "add_subdirectory consumer built and ran")
