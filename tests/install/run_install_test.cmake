# cmake -P script. Installs this build into a scratch prefix, proves it holds no absolute path of
# this machine's build or source tree or of a client library, MOVES the prefix elsewhere
# (relocation), then configures, builds and runs a consumer against the moved copy with
# find_package(shedlock CONFIG COMPONENTS sqlite scheduler OPTIONAL_COMPONENTS redis ...).
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

set(moved ${PREFIX}-moved)
file(REMOVE_RECURSE ${PREFIX} ${moved} ${CONSUMER_BUILD})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
file(GLOB_RECURSE package_files ${PREFIX}/*.cmake)
foreach(f IN LISTS package_files)
  file(READ ${f} text)
  foreach(forbidden ${BUILD_DIR} ${SOURCE_DIR} ${PREFIX} "/usr/lib/")
    string(FIND "${text}" "${forbidden}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${f} holds the absolute path \"${forbidden}\": the package is not relocatable")
    endif()
  endforeach()
endforeach()
file(RENAME ${PREFIX} ${moved})
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${moved} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD})
run(${CONSUMER_BUILD}/consumer ${CONSUMER_BUILD}/consumer.db)
message(STATUS "installed package consumed successfully from a moved prefix")
