#pragma once
// Behaviour every run store must show, checked against a real backend (run_store_suite.cpp
// builds each store with the retention a check names and calls these).

#include <shedlock/run_store.hpp>

#include <chrono>
#include <string>

namespace shedlock::test {

/// A record of `task` scheduled `i` seconds after a fixed instant (finished 253 ms later).
run_record sample_run(const std::string& task, int i, run_outcome outcome = run_outcome::succeeded);

/// Every field survives (fencing token, lock_lost, a 5000-byte message with ';', '=', '%' and
/// UTF-8, odd counter keys; a skip without a token); newest first.
void check_run_round_trip(run_store& store);

/// Store built with max_per_task 5, pruning on every append: 12 appends keep the newest 5.
void check_runs_newest_first_and_capped(run_store& store);

/// Store built with max_age `age` (~300 ms), pruning on every append: a record appended (and
/// finished) more than `age` ago is gone after the next append; the new one stays.
void check_runs_max_age(run_store& store, std::chrono::milliseconds age);

/// Store built with max_age 10 s: records finished a second ago, and a minute before the
/// fixed instant of sample_run but finished now, all stay (age counts from finished_at).
void check_runs_max_age_keeps_recent(run_store& store);

/// Store built with max_per_task 3 and max_age `age`: the count cap applies to fresh records,
/// and an aged record goes although fewer than 3 are kept.
void check_runs_both_limits(run_store& store, std::chrono::milliseconds age);

/// Task names compare byte for byte (case, trailing spaces) and tasks() sorts them bytewise
/// ("B" < "a" < "a ").
void check_run_tasks_sorted_and_case_sensitive(run_store& store);

/// 4 threads x 25 appends to one task: all 100 records are there.
void check_runs_concurrent_appends(run_store& store);

/// last_runs_of_instance: two cluster instances and skips interleaved on one task; only the asked
/// instance's records, newest first, at most n; instances compare byte for byte ("Host:1",
/// "host:1 " are others); an unknown instance or task gives an empty list.
void check_runs_of_instance(run_store& store);

/// Store built with max_per_task 1000: an instance's one record behind 600 newer records of
/// another instance is still found (a store that reads in pages reads them all).
void check_runs_of_instance_behind_many(run_store& store);

}  // namespace shedlock::test
