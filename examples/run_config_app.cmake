# Runs config_app with one config file per backend: SQLite, PostgreSQL, MySQL/MariaDB and Redis
# (the test servers' URIs are required: scripts/test.sh exports them; a missing one fails the
# test by name instead of shrinking it to SQLite). Each run must report beats.
file(MAKE_DIRECTORY ${WORK_DIR})
set(uris "sqlite:${WORK_DIR}/app.db")
foreach(var SHEDLOCK_TEST_POSTGRES_URI SHEDLOCK_TEST_MYSQL_URI SHEDLOCK_TEST_REDIS_URI)
  if("$ENV{${var}}" STREQUAL "")
    message(FATAL_ERROR "${var} is not set: this test needs that server; run it through scripts/test.sh, "
      "or start the server with `eval \"$(providers/<name>/server.sh start /tmp/somedir)\"`")
  endif()
  list(APPEND uris "$ENV{${var}}")
endforeach()
foreach(uri IN LISTS uris)
  string(REGEX REPLACE ":.*" "" scheme "${uri}")
  set(config ${WORK_DIR}/${scheme}.toml)
  # The URI comes in through a placeholder, as an operator would set it.
  file(WRITE ${config} "[shedlock]\nprovider = \"\${CONFIG_APP_PROVIDER}\"\n\n[tasks.heartbeat]\nlock_name = \"config-app:${scheme}\"\n")
  set(ENV{CONFIG_APP_PROVIDER} "${uri}")
  execute_process(COMMAND ${APP} ${config} 3 RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${scheme}: ${out}${err}")
  if(NOT result EQUAL 0 OR NOT out MATCHES "backend ${scheme}: [1-9][0-9]* heartbeat")
    message(FATAL_ERROR "config_app on ${scheme} failed (exit ${result}): ${out}${err}")
  endif()
endforeach()
