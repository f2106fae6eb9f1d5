// Fencing checks: what the protected resource accepted, and whether tokens grew.
#include "analysis_model.hpp"

#include <algorithm>
#include <map>

namespace shedlock::chaos::detail {
namespace {

std::vector<const attempt_view*> holders(const lane_model& lane) {
    std::vector<const attempt_view*> out;
    for (const auto& a : lane.attempts)
        if (a.began && a.token >= 0) out.push_back(&a);
    std::sort(out.begin(), out.end(), [](auto* x, auto* y) { return x->begin < y->begin; });
    return out;
}

/// Two accepted writes whose critical sections overlapped: the end-to-end failure fencing exists to prevent.
void accepted_overlaps(const lane_model& lane, const std::vector<const attempt_view*>& by_begin, std::vector<finding>& out) {
    const attempt_view* open = nullptr;  // the accepted section reaching furthest so far
    for (const auto* a : by_begin) {
        if (!a->commit_ok) continue;
        if (open && a->begin < open->commit)
            out.push_back({"accepted_overlap", describe(*a, lane.origin) + " committed while " +
                                                   describe(*open, lane.origin) + " was in its critical section"});
        if (!open || a->commit > open->commit) open = a;
    }
}

/// Accepted writes in commit order carry strictly increasing tokens.
void accepted_order(const lane_model& lane, const std::vector<const attempt_view*>& by_begin, std::vector<finding>& out) {
    std::vector<const attempt_view*> commits;
    for (const auto* a : by_begin)
        if (a->commit_ok) commits.push_back(a);
    std::sort(commits.begin(), commits.end(), [](auto* x, auto* y) { return x->commit < y->commit; });
    for (std::size_t i = 1; i < commits.size(); ++i)
        if (commits[i]->token <= commits[i - 1]->token)
            out.push_back({"token_order", describe(*commits[i], lane.origin) + " was accepted after " +
                                              describe(*commits[i - 1], lane.origin)});
}

void duplicates(const lane_model& lane, const std::vector<const attempt_view*>& by_begin, std::vector<finding>& out) {
    std::map<std::int64_t, const attempt_view*> first;
    for (const auto* a : by_begin) {
        auto [it, fresh] = first.emplace(a->token, a);
        if (!fresh)
            out.push_back({"duplicate_token", describe(*a, lane.origin) + " got the token of " + describe(*it->second, lane.origin)});
    }
}

/// An acquisition that surely came later (spawned after the other had begun) has a larger token.
void regressions(const lane_model& lane, const std::vector<const attempt_view*>& by_begin, std::vector<finding>& out) {
    std::vector<const attempt_view*> by_spawn = by_begin;
    std::sort(by_spawn.begin(), by_spawn.end(), [](auto* x, auto* y) { return x->spawn < y->spawn; });
    std::size_t next = 0;
    const attempt_view* highest = nullptr;  // the largest token among those begun before the current spawn
    for (const auto* y : by_spawn) {
        while (next < by_begin.size() && by_begin[next]->begin < y->spawn) {  // bounded by the list
            if (!highest || by_begin[next]->token > highest->token) highest = by_begin[next];
            ++next;
        }
        if (highest && highest->token >= y->token)
            out.push_back({"token_regression", describe(*y, lane.origin) + " acquired after " +
                                                   describe(*highest, lane.origin) + " but with a token not above it"});
    }
}

}  // namespace

void check_fencing(const lane_model& lane, std::vector<finding>& out) {
    const auto by_begin = holders(lane);
    accepted_overlaps(lane, by_begin, out);
    accepted_order(lane, by_begin, out);
    duplicates(lane, by_begin, out);
    regressions(lane, by_begin, out);
}

void check_extends(const lane_model& lane, std::vector<finding>& out) {
    const auto by_begin = holders(lane);
    for (const auto& x : lane.attempts) {
        if (!x.began) continue;
        for (std::int64_t start : x.extend_ok_starts) {
            // Once a newer holder has begun, this owner token is gone from the backend for good.
            const auto newer = std::find_if(by_begin.begin(), by_begin.end(), [&](const attempt_view* y) {
                return y->token > x.token && y->begin < start;
            });
            if (newer != by_begin.end())
                out.push_back({"stale_extend", describe(x, lane.origin) + " extended its lease at " +
                                                   at(start, lane.origin) + ", after " +
                                                   describe(**newer, lane.origin) + " had taken the lock"});
        }
    }
}

}  // namespace shedlock::chaos::detail
