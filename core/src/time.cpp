#include <shedlock/error.hpp>
#include <shedlock/time.hpp>

#include <cctype>
#include <cstdio>
#include <thread>

namespace shedlock {

using namespace std::chrono;

timestamp system_clock::now() const { return floor<milliseconds>(std::chrono::system_clock::now()); }

void clock::sleep_for(milliseconds d) const { std::this_thread::sleep_for(d); }

const system_clock& system_clock::instance() {
    // Never destroyed: a lock_handle destroyed just before exit releases on a pool thread that may
    // still run during static destruction, and every provider defaults to this clock
    // (tests/asio_exit/release_at_exit.cpp).
    static const system_clock* const clock = new system_clock;
    return *clock;
}

namespace {

/// `value` as exactly `width` decimal digits (zero-padded) at `out`; returns the end.
char* put_digits(char* out, long value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10) out[i] = static_cast<char>('0' + value % 10);
    return out + width;
}

}  // namespace

// Written digit by digit: snprintf cost ~3,500 instructions a call, and every SQL lock
// operation formats two timestamps. Years outside 0..9999 (never a lock time: leases end within
// ten years) keep printf's rendering.
std::string format_timestamp(timestamp t) {
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    const int y = static_cast<int>(ymd.year());
    const long ms = static_cast<long>((t - day).count());
    if (y < 0 || y > 9999) {
        const hh_mm_ss<milliseconds> hms{t - day};
        char buf[40];
        std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02ld:%02ld:%02ld.%03ld", y, static_cast<unsigned>(ymd.month()),
                      static_cast<unsigned>(ymd.day()), static_cast<long>(hms.hours().count()),
                      static_cast<long>(hms.minutes().count()), static_cast<long>(hms.seconds().count()),
                      static_cast<long>(hms.subseconds().count()));
        return buf;
    }
    char buf[23];  // "YYYY-MM-DD HH:MM:SS.mmm"
    char* out = put_digits(buf, y, 4);
    *out++ = '-';
    out = put_digits(out, static_cast<unsigned>(ymd.month()), 2);
    *out++ = '-';
    out = put_digits(out, static_cast<unsigned>(ymd.day()), 2);
    *out++ = ' ';
    out = put_digits(out, ms / 3'600'000, 2);
    *out++ = ':';
    out = put_digits(out, ms / 60'000 % 60, 2);
    *out++ = ':';
    out = put_digits(out, ms / 1000 % 60, 2);
    *out++ = '.';
    out = put_digits(out, ms % 1000, 3);
    return std::string(buf, out);
}

std::string format_iso_timestamp(timestamp t) {
    std::string text = format_timestamp(t);
    text[text.find(' ')] = 'T';
    return text + "Z";
}

namespace {

/// The number written by the `n` digits at `pos`, or -1 if any of them is not a digit.
int digits_at(const std::string& text, std::size_t pos, std::size_t n) {
    int value = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
        if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

}  // namespace

timestamp parse_timestamp(const std::string& text) {
    // Fixed widths, digits only: sscanf's %u took signs and blanks ("-1" became hour 4294967295)
    // and nothing bounded the time of day, so a damaged row read as a lock held until year 490,000.
    const int y = digits_at(text, 0, 4), mo = digits_at(text, 5, 2), d = digits_at(text, 8, 2);
    const int h = digits_at(text, 11, 2), mi = digits_at(text, 14, 2), s = digits_at(text, 17, 2);
    const bool shaped = text.size() >= 19 && text[4] == '-' && text[7] == '-' && (text[10] == ' ' || text[10] == 'T') &&
                        text[13] == ':' && text[16] == ':';
    if (!shaped || y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0)
        throw storage_error(storage_category::invalid_data, "stored time \"" + text + "\" is not YYYY-MM-DD HH:MM:SS[.fff]");
    if (h > 23 || mi > 59 || s > 59)
        throw storage_error(storage_category::invalid_data, "stored time \"" + text + "\" is not a time of day");
    const std::size_t consumed = 19;
    long ms = 0;
    if (text.size() > consumed && text[consumed] == '.') {
        long scale = 100;
        for (std::size_t i = consumed + 1; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
            ms += (text[i] - '0') * scale;
            scale /= 10;
        }
    }
    const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
    if (!ymd.ok()) throw storage_error(storage_category::invalid_data, "stored time \"" + text + "\" is not a date");
    return timestamp{sys_days{ymd}.time_since_epoch() + hours{h} + minutes{mi} + seconds{s} + milliseconds{ms}};
}

}  // namespace shedlock
