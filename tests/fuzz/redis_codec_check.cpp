// Decoding what Redis hands back: run-record stream entries and key names. The first byte
// picks the mode:
//   0: field/value lines ('\n'-separated) as one XRANGE entry -> decode_run_entry;
//   1: raw RESP bytes through hiredis' own reader, every reply -> decode_run_entry;
//   2: a run_record built from the bytes -> encode_run_fields -> entry -> decode: the same record;
//   3: prefix, env and a lock name -> redis_keys: name_of() inverts lock_key() and fence_key().
// Decoding may reject with storage_error only; whatever decodes re-encodes to the same record.
#include "fuzz_check.hpp"
#include "fuzz_bytes.hpp"

#include "redis_keys.hpp"
#include "redis_run_codec.hpp"

#include <shedlock/error.hpp>
#include <shedlock/lock_configuration.hpp>

#include <hiredis/hiredis.h>

#include <deque>
#include <memory>

namespace shedlock::fuzz {
namespace {

using providers::detail::decode_run_entry;
using providers::detail::encode_run_fields;

/// Replies built in memory the way hiredis shapes them; the builder owns every byte.
class reply_builder {
public:
    redisReply* string(std::string text) {
        auto& owned = texts_.emplace_back(std::move(text));
        redisReply& r = replies_.emplace_back();
        r.type = REDIS_REPLY_STRING;
        r.str = owned.data();
        r.len = owned.size();
        return &r;
    }
    redisReply* array(std::vector<redisReply*> elements) {
        auto& owned = arrays_.emplace_back(std::move(elements));
        redisReply& r = replies_.emplace_back();
        r.type = REDIS_REPLY_ARRAY;
        r.element = owned.data();
        r.elements = owned.size();
        return &r;
    }
    /// `[id, [field, value, ...]]`, one entry of an XRANGE reply.
    const redisReply& entry(const std::vector<std::string>& fields) {
        std::vector<redisReply*> pairs;
        for (const auto& f : fields) pairs.push_back(string(f));
        return *array({string("1700000000000-0"), array(std::move(pairs))});
    }

private:
    std::deque<std::string> texts_;
    std::deque<redisReply> replies_;
    std::deque<std::vector<redisReply*>> arrays_;
};

void expect_same(const run_record& a, const run_record& b, const std::string& what) {
    const bool same = a.task == b.task && a.lock_name == b.lock_name && a.instance == b.instance &&
                      a.scheduled_at == b.scheduled_at && a.started_at == b.started_at &&
                      a.finished_at == b.finished_at && a.outcome == b.outcome && a.fencing_token == b.fencing_token &&
                      a.message == b.message && a.counters == b.counters && a.lock_lost == b.lock_lost;
    expect(same, [&] {
        return what + ": the record changed on encode -> decode (lock_name \"" + shown(a.lock_name) + "\" / \"" +
               shown(b.lock_name) + "\", counters " + shown(encode_counters(a.counters)) + " / " +
               shown(encode_counters(b.counters)) + ")";
    });
}

/// Decodes `entry`; a record that decodes must survive another encode -> decode unchanged.
void decode_and_recode(const redisReply& entry) {
    run_record r;
    try {
        r = decode_run_entry(entry, "task", "shedlock:runs:{task}");
    } catch (const storage_error&) {
        return;
    }
    reply_builder again;
    expect_same(r, decode_run_entry(again.entry(encode_run_fields(r)), "task", "k"), "decoded entry");
}

void check_fields(std::string_view text) {
    std::vector<std::string> fields;
    for (std::size_t start = 0;;) {
        const auto end = text.find('\n', start);
        fields.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    reply_builder replies;
    decode_and_recode(replies.entry(fields));
}

/// hiredis 0.14 allocates whatever a multi-bulk or bulk header announces; a fuzzed
/// "*999999999" would be an out-of-memory report about hiredis, not about our decoder.
bool announces_huge_length(std::string_view resp) {
    for (std::size_t i = 0; i + 5 < resp.size(); ++i) {
        const bool header = resp[i] == '*' || resp[i] == '$';
        if (header && resp.substr(i + 1, 5).find_first_not_of("0123456789") == std::string_view::npos) return true;
    }
    return false;
}

void check_resp(std::string_view resp) {
    if (announces_huge_length(resp)) return;
    const std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(), redisReaderFree);
    if (!reader || redisReaderFeed(reader.get(), resp.data(), resp.size()) != REDIS_OK) return;
    for (int n = 0; n < 16; ++n) {
        void* raw = nullptr;
        if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK || !raw) return;
        const std::unique_ptr<redisReply, void (*)(void*)> reply(static_cast<redisReply*>(raw), freeReplyObject);
        decode_and_recode(*reply);
    }
}

void check_record(byte_reader in) {
    run_record r;
    r.task = "task";
    r.lock_name = in.text();
    r.instance = in.text();
    r.scheduled_at = timestamp{std::chrono::milliseconds{in.integer()}};
    r.started_at = timestamp{std::chrono::milliseconds{in.integer()}};
    r.finished_at = timestamp{std::chrono::milliseconds{in.integer()}};
    r.outcome = static_cast<run_outcome>(in.byte() % 5);
    if (in.byte() % 2) r.fencing_token = in.integer();
    r.message = in.text();
    for (int n = in.byte() % 4; n > 0; --n) r.counters[in.text()] = in.integer();
    r.lock_lost = in.byte() % 2;
    reply_builder replies;
    expect_same(r, decode_run_entry(replies.entry(encode_run_fields(r)), "task", "k"), "built record");
}

void check_keys(byte_reader in) {
    providers::redis_options o;
    o.java_compat = in.byte() % 2;
    o.prefix = in.text();
    o.env = in.text();
    const std::string name = in.text();
    const std::string key = in.rest();
    try {
        providers::detail::validate_redis_options(o);
    } catch (const configuration_error&) {
        return;
    }
    const providers::detail::redis_keys keys(o);
    if (const auto of_key = keys.name_of(key))  // a name only for a key this prefix and env made
        expect(keys.lock_key(*of_key) == key || keys.fence_key(*of_key) == key,
               [&] { return "name_of(\"" + shown(key) + "\") = \"" + shown(*of_key) + "\", whose keys differ"; });
    try {
        validate_lock_name(name);
    } catch (const configuration_error&) {
        return;
    }
    for (const auto& k : {keys.lock_key(name), keys.fence_key(name)})
        expect(keys.name_of(k) == name, [&] { return "name_of(\"" + shown(k) + "\") is not \"" + shown(name) + "\""; });
    expect(keys.lock_key(name) != keys.fence_key(name),
           [&] { return "lock and fence key are one key: " + shown(keys.lock_key(name)); });
}

void check_redis_codec(std::string_view input) {
    if (input.empty()) return;
    const std::string_view rest = input.substr(1);
    switch (static_cast<unsigned char>(input[0]) % 4) {
        case 0: return check_fields(rest);
        case 1: return check_resp(rest);
        case 2: return check_record(byte_reader(rest));
        default: return check_keys(byte_reader(rest));
    }
}

[[maybe_unused]] const bool registered = register_check("redis_codec", check_redis_codec);

}  // namespace
}  // namespace shedlock::fuzz
