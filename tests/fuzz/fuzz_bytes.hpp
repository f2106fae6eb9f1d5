#pragma once
// Structured values from fuzz bytes, for targets whose input is not text. Reading past the end
// yields zeros and empty strings, so every input is usable.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace shedlock::fuzz {

class byte_reader {
public:
    explicit byte_reader(std::string_view bytes) : bytes_(bytes) {}

    unsigned char byte() {
        if (bytes_.empty()) return 0;
        const auto b = static_cast<unsigned char>(bytes_.front());
        bytes_.remove_prefix(1);
        return b;
    }
    std::int64_t integer() {
        std::int64_t value = 0;
        const std::size_t n = std::min(sizeof value, bytes_.size());
        if (n > 0) std::memcpy(&value, bytes_.data(), n);  // never memcpy from a null view
        bytes_.remove_prefix(n);
        return value;
    }
    /// A length byte (0..63), then that many bytes.
    std::string text() {
        const std::size_t n = std::min<std::size_t>(byte() % 64, bytes_.size());
        std::string out(bytes_.substr(0, n));
        bytes_.remove_prefix(n);
        return out;
    }
    std::string rest() {
        std::string out(bytes_);
        bytes_ = {};
        return out;
    }

private:
    std::string_view bytes_;
};

}  // namespace shedlock::fuzz
