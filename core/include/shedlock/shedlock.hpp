#pragma once
/// \file
/// Everything of the core in one include.

#include <shedlock/backend_session.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/lock_assert.hpp>
#include <shedlock/lock_configuration.hpp>
#include <shedlock/lock_inspector.hpp>
#include <shedlock/lock_provider.hpp>
#include <shedlock/lock_wait.hpp>
#include <shedlock/memory_idempotency_store.hpp>
#include <shedlock/memory_run_store.hpp>
#include <shedlock/locking_task_executor.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/provider_uri.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/run_store.hpp>
#include <shedlock/task_context.hpp>
#include <shedlock/time.hpp>
