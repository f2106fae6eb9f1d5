#include <shedlock/detail/claim_checks.hpp>
#include <shedlock/duration.hpp>
#include <shedlock/error.hpp>
#include <shedlock/idempotency_store.hpp>
#include <shedlock/owner_token.hpp>
#include <shedlock/utf8.hpp>

#include <cstdio>

namespace shedlock {
namespace {

/// The value for a message, cut at 80 bytes (an over-long key is named, not echoed in full).
std::string shown_claim_value(std::string_view value) { return printable_text(value, 80); }

/// Throws unless `value` is 1..max_chars printable UTF-8 characters.
void validate_printable(std::string_view value, std::string_view what, std::size_t max_chars) {
    const std::string role(what);
    if (value.empty()) throw configuration_error(role + " is empty; give one such as \"settle:2024-06-01\"");
    std::size_t characters = 0;
    for (std::size_t pos = 0; pos < value.size(); ++characters) {
        const auto decoded = decode_utf8_at(value, pos);
        if (!decoded)
            throw configuration_error(role + " \"" + shown_claim_value(value) + "\" is not valid UTF-8 (byte " +
                                      std::to_string(pos) + "); write it in UTF-8");
        if (is_control_character(decoded->code_point))
            throw configuration_error(role + " \"" + shown_claim_value(value) +
                                      "\" contains a control character; use printable characters only");
        pos += decoded->length;
    }
    if (characters > max_chars)
        throw configuration_error(role + " \"" + shown_claim_value(value) + "\" has " + std::to_string(characters) +
                                  " characters; at most " + std::to_string(max_chars) +
                                  " fit the key column, shorten it (e.g. hash the variable part)");
}

/// White space (Unicode White_Space), zero-width characters and bidirectional formatting: a key of
/// nothing else looks empty wherever it is shown, and is what `"$A $B"` with both unset gives.
bool shows_as_nothing(char32_t cp) noexcept {
    const bool space = (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
                       (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
                       cp == 0x205f || cp == 0x3000;
    const bool zero_width = (cp >= 0x200b && cp <= 0x200d) || cp == 0x2060 || cp == 0xfeff || cp == 0x180e || cp == 0xad;
    return space || zero_width || is_bidi_control(cp);
}

/// Throws when `value` (valid UTF-8) holds nothing visible, naming its code points.
void refuse_blank(std::string_view value, std::string_view what) {
    std::string code_points;
    for (std::size_t pos = 0; pos < value.size();) {
        const auto decoded = decode_utf8_at(value, pos);
        if (!decoded || !shows_as_nothing(decoded->code_point)) return;
        char code[16];
        std::snprintf(code, sizeof code, "%sU+%04X", code_points.empty() ? "" : " ",
                      static_cast<unsigned>(decoded->code_point));
        code_points += code;
        pos += decoded->length;
    }
    throw configuration_error(std::string(what) + " \"" + shown_claim_value(value) + "\" is blank (only " +
                              code_points + ": spaces or invisible characters, an unset variable?); give the "
                              "business key, e.g. settle:2024-06-01");
}

void validate_result(const std::string& text, std::string_view what) {
    if (text.size() > max_claim_result_bytes)
        throw configuration_error(std::string(what) + " has " + std::to_string(text.size()) + " bytes; at most " +
                                  std::to_string(max_claim_result_bytes) +
                                  " are kept with a claim, store large results elsewhere and keep a reference");
}

}  // namespace

void validate_claim_key(std::string_view key, std::string_view what) {
    validate_printable(key, what, max_claim_key_length);
    refuse_blank(key, what);
}

namespace detail {

void validate_claim(std::string_view key, std::chrono::milliseconds claim_for) {
    validate_claim_key(key);
    if (claim_for.count() <= 0)
        throw configuration_error("claim_for " + format_duration(claim_for) + " of idempotency key \"" +
                                  shown_claim_value(key) +
                                  "\" must be positive; give the longest the work may take, e.g. PT10M");
}

void validate_completion(std::string_view key, const std::string& result) {
    validate_claim_key(key);
    validate_result(result, "result of \"" + shown_claim_value(key) + "\"");
}

}  // namespace detail

const char* to_string(claim_status status) noexcept {
    switch (status) {
        case claim_status::claimed: return "claimed";
        case claim_status::already_done: return "already_done";
        case claim_status::in_progress: return "in_progress";
    }
    return "unknown";
}

idempotency_store::idempotency_store(const shedlock::clock& clock) : clock_(clock) {}

claim_result idempotency_store::claim(const std::string& key, std::chrono::milliseconds claim_for,
                                      std::optional<std::int64_t> fencing_token) {
    detail::validate_claim(key, claim_for);
    const std::string owner = make_owner_token();
    try {
        return do_claim(key, claim_for, fencing_token, owner);
    } catch (const storage_error& e) {
        if (e.category() == storage_category::missing_schema || e.category() == storage_category::access_denied) throw;
        // The backend's advice (was the claim sent? applied?) stays with the error it explained.
        throw storage_error(e.category(), e.advice(),
                            std::string(e.what()) + "; " + release_unanswered_claim(key, owner));
    }
}

std::string idempotency_store::release_unanswered_claim(const std::string& key, const std::string& owner) {
    idempotency_claim maybe_written;
    maybe_written.key = key;
    maybe_written.owner = owner;
    try {
        if (fail(maybe_written, "the answer to this claim was lost; released by its owner") == finish_status::finished)
            return "the claim had been written and was released (marked failed): the next run can take the key";
        return "no claim of this run was stored: the key is not blocked by it";
    } catch (const error& e) {
        return std::string("releasing the claim, which may have been written, failed too (") + e.what() +
               "): the key may stay blocked until claim_for has passed";
    }
}

finish_status idempotency_store::complete(const idempotency_claim& claim, const std::string& result) {
    detail::validate_completion(claim.key, result);
    return finish(claim, claim_state::done, result);
}

finish_status idempotency_store::fail(const idempotency_claim& claim, const std::string& message) {
    validate_claim_key(claim.key);
    const std::string kept = message.size() > max_claim_result_bytes ? message.substr(0, max_claim_result_bytes) : message;
    return finish(claim, claim_state::failed, kept);
}

finish_status idempotency_store::finish(const idempotency_claim& claim, std::string_view state, const std::string& result) {
    if (do_finish(claim, state, result) == finish_status::finished) return finish_status::finished;
    // Nothing running under this owner: either the claim was taken over (or reset), or this
    // very call was retried after a lost answer and its first attempt was applied. Only this
    // claim writes its owner token with `state`, so the record tells the two apart.
    const auto records = do_list(claim.key);
    const bool finished_by_us = !records.empty() && records.front().owner == claim.owner && records.front().state == state;
    return finished_by_us ? finish_status::finished : finish_status::claim_lost;
}

bool idempotency_store::transition(const std::string& key, const std::string& from, const std::string& to) {
    validate_claim_key(key);
    if (!from.empty()) validate_printable(from, "state", max_claim_state_length);
    validate_printable(to, "state", max_claim_state_length);
    if (from == to)
        throw configuration_error("transition of \"" + shown_claim_value(key) + "\" from \"" + from + "\" to itself; "
                                  "give two different states");
    return do_transition(key, from, to);
}

bool idempotency_store::fence(const std::string& resource, std::int64_t token) {
    validate_claim_key(resource, "fence resource");
    return do_fence(resource, token);
}

std::vector<claim_record> idempotency_store::list() { return do_list(std::nullopt); }

std::optional<claim_record> idempotency_store::find(const std::string& key) {
    validate_claim_key(key);
    auto records = do_list(key);
    if (records.empty()) return std::nullopt;
    return std::move(records.front());
}

bool idempotency_store::reset(const std::string& key) {
    validate_claim_key(key);
    return do_reset(key);
}

std::size_t idempotency_store::purge(std::chrono::milliseconds older_than) {
    if (older_than.count() < 0)
        throw configuration_error("purge older_than " + format_duration(older_than) +
                                  " must not be negative; give how long finished claims are kept, e.g. P30D");
    return do_purge(clock_.now() - older_than);
}

}  // namespace shedlock
