#pragma once
// The cluster's run records as the status server shows them (/api/runs and the page's cluster
// panel): the query's parameters, the read of the shared run store, the JSON and the HTML. Every
// instance of a cluster appends to the same store, so this is where "which instance ran it, and
// did it run at all" is answered.

#include <shedlock/run_store.hpp>
#include <shedlock/scheduler.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace shedlock::detail {

inline constexpr std::size_t default_runs_limit = 20;
/// The most records one request reads per task (`limit`): the answer stays bounded.
inline constexpr std::size_t max_runs_limit = 1000;
/// The longest `task` or `instance` value (the run tables' columns are VARCHAR(255)).
inline constexpr std::size_t max_runs_query_value_bytes = 255;

/// A validated /api/runs (or `/?task=`) query.
struct runs_query {
    std::string task;                     ///< empty: every task of this scheduler
    std::optional<std::string> instance;  ///< only the records this instance wrote (byte for byte)
    std::size_t limit = default_runs_limit;
};

/// Why a query cannot be answered: 400 (a bad value, named) or 404 (no such task).
struct runs_query_error {
    unsigned status = 400;
    std::string message;
};

/// The query in `params` (`task`, `instance`, `limit`; others are ignored; an empty value is
/// absent). `task` must name one of `known`; an instance nobody wrote is a valid filter.
std::variant<runs_query, runs_query_error> parse_runs_query(const std::map<std::string, std::string>& params,
                                                            const std::vector<task_status>& known);

/// One store read per task asked for: `q.task`'s alone, or each of `tasks` when it is empty.
/// Throws what the store throws.
std::vector<run_record> read_runs(run_store& store, const runs_query& q, const std::vector<task_status>& tasks);

/// `{"this_instance", "task", "instance", "limit", "runs": [...]}`, newest first per task.
std::string runs_json(const runs_query& q, const std::vector<run_record>& runs, const std::string& this_instance);

/// The page's panel of `q.task`'s cluster firings (from read_runs), or of why they could not be
/// read (`store_error`, redacted, non-empty).
std::string cluster_panel(const runs_query& q, const std::vector<run_record>& runs, const std::string& this_instance,
                          const std::string& store_error);

}  // namespace shedlock::detail
