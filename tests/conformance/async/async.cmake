# The conformance suite through the asynchronous interface (tests/conformance/async/), included
# from tests/CMakeLists.txt: with shedlock::asio the suite can run its cases through a backend's
# lock_service (SHEDLOCK_CONFORMANCE_INTERFACE=awaitable|callbacks, registered per backend by
# shedlock_conformance_test); without it, the blocking interface only.
set(async_dir ${CMAKE_CURRENT_LIST_DIR})
if(TARGET shedlock::asio)
  target_sources(shedlock_conformance PRIVATE
    ${async_dir}/async_backend.cpp
    ${async_dir}/async_calls.cpp
    ${async_dir}/async_lock_provider.cpp)
  target_link_libraries(shedlock_conformance PUBLIC shedlock::asio)
  # conformance.hpp declares backend::make_async_service only then.
  target_compile_definitions(shedlock_conformance PUBLIC SHEDLOCK_CONFORMANCE_ASYNC=1)
else()
  target_sources(shedlock_conformance PRIVATE ${async_dir}/blocking_only.cpp)
endif()
target_include_directories(shedlock_conformance PUBLIC ${async_dir})
