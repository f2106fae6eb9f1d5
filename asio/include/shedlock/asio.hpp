#pragma once
/// \file
/// The Asio-native face of shedlock (component shedlock::asio, docs/asio.md): asynchronous lock
/// and claim operations with completion tokens, and the adapters between the blocking and the
/// asynchronous interfaces.

#include <shedlock/asio/async_session.hpp>
#include <shedlock/asio/blocking_lock_provider.hpp>
#include <shedlock/asio/claim_service.hpp>
#include <shedlock/asio/error.hpp>
#include <shedlock/asio/lock_handle.hpp>
#include <shedlock/asio/lock_ops.hpp>
#include <shedlock/asio/lock_service.hpp>
#include <shedlock/asio/pooled_services.hpp>
