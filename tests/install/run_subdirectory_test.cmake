# cmake -P script: a consumer that adds shedlock's source tree with add_subdirectory and links the
# same shedlock:: targets as an installed-package consumer; configure, build (only what the
# consumer links), run.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${CONSUMER_BUILD})
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR} -DSHEDLOCK_SOURCE=${SOURCE}
    -DCMAKE_BUILD_TYPE=Release -DSHEDLOCK_BUILD_CLI=OFF)
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD} --target consumer -j2)
run(${CONSUMER_BUILD}/consumer ${CONSUMER_BUILD}/consumer.db)
message(STATUS "add_subdirectory consumer built and ran")
