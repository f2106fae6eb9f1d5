// The shared SQL-server suites' helpers: names from the backend's words, options and providers
// on its test server.
#include "java_sharing.hpp"
#include "sql_server_suite.hpp"

#include <unistd.h>

#include <chrono>
#include <thread>

namespace shedlock::test::sql_server {
namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
}

}  // namespace

const case_words& words() { return backend_words; }

const context& backend() {
    static const context made = make_backend();
    return made;
}

lock_options options_for(const std::string& table) {
    auto o = backend().server_options();
    o.table = table + "_" + std::to_string(::getpid());
    return o;
}

std::unique_ptr<sql::sql_lock_provider> make_provider(const lock_options& options, const shedlock::clock& clock) {
    return backend().make_provider(options, clock);
}

std::string fresh_table(const std::string& stem) {
    const std::string table = stem + "_" + std::to_string(::getpid());
    backend().exec("DROP TABLE IF EXISTS " + table);
    return table;
}

std::unique_ptr<sql::sql_lock_provider> db_time_provider(const std::string& table) {
    auto o = backend().server_options();
    o.table = table;
    o.use_db_time = true;
    o.create_schema_if_missing = true;
    return make_provider(o);
}

std::string error_text(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

void wait_until_gone(const std::function<std::optional<std::string>()>& count_left) {
    for (int i = 0; i < 250 && count_left() != std::optional<std::string>("0"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

std::string with_table(const std::string& text, const std::string& table) {
    std::string out = text;
    replace_all(out, "{t}", table);
    return out;
}

bool contains_all::match(const std::string& text) const {
    for (const auto& part : parts_)
        if (text.find(part) == std::string::npos) return false;
    return true;
}

std::string contains_all::describe() const {
    std::string out = "contains all of:";
    for (const auto& part : parts_) out += " \"" + part + "\"";
    return out;
}

case_registrar::case_registrar(void (*run)(), const char* title, const char* tags, const char* file,
                               std::size_t line) {
    const case_words& w = words();
    std::string name = title;
    replace_all(name, "{name}", w.name);
    replace_all(name, "{qualified_by}", w.qualified_by);
    replace_all(name, "{kill}", w.kill_words);
    replace_all(name, "{alias}", w.alias_words);
    const std::string all_tags = "[" + std::string(w.name) + "]" + tags;
    // AutoReg copies name and tags into the registry before these strings go.
    Catch::AutoReg(Catch::makeTestInvoker(run), Catch::SourceLineInfo(file, line), Catch::StringRef(),
                   Catch::NameAndTags{name, all_tags});
}

}  // namespace shedlock::test::sql_server
