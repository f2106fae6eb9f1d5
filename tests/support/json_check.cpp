#include "json_check.hpp"

#include <shedlock/utf8.hpp>

#include <stdexcept>

namespace shedlock::test {
namespace {

/// Recursive descent over one document; every error throws with the offset.
class json_reader {
public:
    explicit json_reader(std::string_view text) : text_(text) {}

    void document() {
        value();
        spaces();
        if (pos_ != text_.size()) fail("text after the document");
    }

    std::string string_literal() {
        expect('"');
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string");
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') break;
            if (c < 0x20) fail("raw control character in a string");
            if (c == '\\') {
                ++pos_;
                escape(out);
                continue;
            }
            const auto decoded = decode_utf8_at(text_, pos_);
            if (!decoded) fail("invalid UTF-8");
            out.append(text_.substr(pos_, decoded->length));
            pos_ += decoded->length;
        }
        ++pos_;
        return out;
    }

    bool at_end() const { return pos_ == text_.size(); }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error(what + " at byte " + std::to_string(pos_));
    }
    void spaces() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    void expect(char c) {
        if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    bool next_is(char c) {
        spaces();
        return pos_ < text_.size() && text_[pos_] == c;
    }
    void literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) fail("unknown literal");
        pos_ += word.size();
    }

    void value() {
        spaces();
        if (pos_ >= text_.size()) fail("expected a value");
        switch (text_[pos_]) {
            case '{': object(); break;
            case '[': array(); break;
            case '"': (void)string_literal(); break;
            case 't': literal("true"); break;
            case 'f': literal("false"); break;
            case 'n': literal("null"); break;
            default: number();
        }
    }
    void object() {
        expect('{');
        if (next_is('}')) { ++pos_; return; }
        do {
            spaces();
            (void)string_literal();
            spaces();
            expect(':');
            value();
        } while (next_is(',') && ++pos_);
        spaces();
        expect('}');
    }
    void array() {
        expect('[');
        if (next_is(']')) { ++pos_; return; }
        do value();
        while (next_is(',') && ++pos_);
        spaces();
        expect(']');
    }
    std::size_t digits() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
        return pos_ - start;
    }
    void number() {
        if (text_[pos_] == '-') ++pos_;
        const std::size_t first = pos_;
        const std::size_t n = digits();
        if (n == 0 || (n > 1 && text_[first] == '0')) fail("bad number");
        if (pos_ < text_.size() && text_[pos_] == '.' && (++pos_, digits() == 0)) fail("bad fraction");
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (digits() == 0) fail("bad exponent");
        }
    }
    unsigned hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = text_[pos_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
            else fail("bad hex digit in \\u escape");
        }
        return v;
    }
    void escape(std::string& out) {
        if (pos_ >= text_.size()) fail("unterminated escape");
        const char c = text_[pos_++];
        switch (c) {
            case '"': out += '"'; return;
            case '\\': out += '\\'; return;
            case '/': out += '/'; return;
            case 'b': out += '\b'; return;
            case 'f': out += '\f'; return;
            case 'n': out += '\n'; return;
            case 'r': out += '\r'; return;
            case 't': out += '\t'; return;
            case 'u': break;
            default: fail("unknown escape");
        }
        char32_t cp = hex4();
        if (cp >= 0xdc00 && cp <= 0xdfff) fail("lone low surrogate");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (text_.substr(pos_, 2) != "\\u") fail("lone high surrogate");
            pos_ += 2;
            const char32_t low = hex4();
            if (low < 0xdc00 || low > 0xdfff) fail("high surrogate without a low one");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        append_utf8(out, cp);
    }
    static void append_utf8(std::string& out, char32_t cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xc0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += char(0xe0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        } else {
            out += char(0xf0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3f));
            out += char(0x80 | ((cp >> 6) & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

std::optional<std::string> json_problem(std::string_view text) {
    try {
        json_reader(text).document();
        return std::nullopt;
    } catch (const std::runtime_error& e) {
        return std::string(e.what());
    }
}

std::optional<std::string> json_string_value(std::string_view literal) {
    try {
        json_reader reader(literal);
        auto value = reader.string_literal();
        if (!reader.at_end()) return std::nullopt;
        return value;
    } catch (const std::runtime_error&) {
        return std::nullopt;
    }
}

}  // namespace shedlock::test
