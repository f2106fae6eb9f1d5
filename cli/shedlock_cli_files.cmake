# What the shedlock package ships beside the binary (install component "cli"):
# - the manual page, configured with the project version, gzip-compressed as Debian wants it;
# - /etc/shedlock/shedlock.toml and the systemd unit shedlock.service. Their paths are the
#   system's, not the prefix's, so they are EXCLUDE_FROM_ALL: a plain `cmake --install
#   --prefix DIR` never writes to /etc; CPack, which installs component by component, takes them.
configure_file(man/shedlock.1.in ${CMAKE_CURRENT_BINARY_DIR}/shedlock.1 @ONLY)
set(man_page ${CMAKE_CURRENT_BINARY_DIR}/shedlock.1)
find_program(SHEDLOCK_GZIP gzip)
if(SHEDLOCK_GZIP)
  # -n: no name or time stamp inside, so the same page gives the same bytes (reproducible).
  add_custom_command(OUTPUT ${man_page}.gz
    COMMAND ${SHEDLOCK_GZIP} -9 -n -k -f ${man_page}
    DEPENDS ${man_page}
    COMMENT "Compressing the shedlock(1) manual page")
  add_custom_target(shedlock_man_page ALL DEPENDS ${man_page}.gz)
  set(man_page ${man_page}.gz)
endif()
install(FILES ${man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)

install(FILES dist/shedlock.toml DESTINATION /etc/shedlock COMPONENT cli EXCLUDE_FROM_ALL)
install(FILES dist/shedlock.service DESTINATION /lib/systemd/system COMPONENT cli EXCLUDE_FROM_ALL)
