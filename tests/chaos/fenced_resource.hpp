#pragma once
// The shared resource the chaos workers write to: it rejects stale fencing tokens, the way a
// storage service that takes fencing tokens would (ARCHITECTURE §2, "Fencing token").

#include <cstdint>
#include <string>

namespace shedlock::chaos {

/// Per lock name, the resource remembers the highest token it has seen and refuses any request
/// with a lower one. A holder's critical section is two requests:
///   begin(token)   accepted iff token >= highest seen; it then becomes the highest seen
///   commit(token)  accepted iff begin was accepted and token >= highest seen, i.e. no holder
///                  with a newer token has begun since
/// With unique tokens, two holders whose [begin, commit] overlap can never both commit; only a
/// repeated token (a backend that does not increment) lets both through. Every request is
/// logged to the journal, atomically with the check (both under the journal's flock).
///
/// State lives in `dir/state-<name>` (the highest token, decimal), so every process of the run
/// shares it. It is written before the journal line: a writer killed in between leaves a
/// higher "highest" without a line, which only makes later requests stricter.
class fenced_resource {
public:
    explicit fenced_resource(std::string dir);
    bool begin(const std::string& name, std::int64_t attempt, std::int64_t token);
    bool commit(const std::string& name, std::int64_t attempt, std::int64_t token, bool began);
    std::string journal_path() const { return dir_ + "/journal.log"; }

private:
    std::string dir_;
};

}  // namespace shedlock::chaos
