# Sanitizer builds, selected by the SHEDLOCK_SANITIZE cache variable (see CMakePresets.json).
# Applied to this project's directory only, never to a consumer's flags.
if(SHEDLOCK_SANITIZE)
  if(NOT SHEDLOCK_TOP_LEVEL)
    message(FATAL_ERROR "SHEDLOCK_SANITIZE is for shedlock's own test builds; set it only when shedlock is the top-level project")
  endif()
  string(REPLACE "," ";" _shedlock_sanitizers "${SHEDLOCK_SANITIZE}")
  foreach(_s IN LISTS _shedlock_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "SHEDLOCK_SANITIZE: \"${_s}\" is not a sanitizer; use address,undefined or thread")
    endif()
  endforeach()
  add_compile_options(-fsanitize=${SHEDLOCK_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SHEDLOCK_SANITIZE})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 at -O1 with the sanitizers' instrumentation takes library internals for
    # maybe-uninitialized (std::regex's std::function moves, Boost.Asio's use_future completion):
    # false positives that come and go with inlining. The plain -O2 pass keeps the warning.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  if(SHEDLOCK_SANITIZE MATCHES "thread")
    # GCC warns that TSan cannot see std::atomic_thread_fence (used inside Boost.Asio); the
    # warning is about TSan's coverage, not our code, and must not fail a -Werror build.
    add_compile_options(-Wno-tsan)
  endif()
endif()
