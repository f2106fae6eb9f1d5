// End-to-end: the CLI's backends are plug-in modules loaded when a URI names them. A SQLite run
// maps no other backend's client library, and a missing or mismatched module is a configuration
// error that names the file and the fix.
#include "cli_process.hpp"

#include "test_env.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace shedlock::test;
using Catch::Matchers::Contains;

namespace {

std::string sqlite_uri() { return "sqlite:" + scratch_dir() + "/modules.db?create_schema=true"; }

/// A module directory of this test's own holding `files` (target name -> source path).
std::string module_dir_with(const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string dir = scratch_dir() + "/modules";
    std::filesystem::create_directories(dir);
    for (const auto& [name, source] : files)
        std::filesystem::copy_file(source, dir + "/" + name, std::filesystem::copy_options::overwrite_existing);
    return dir;
}

/// A directory `name` of this test's own holding `files` (target name -> source path).
std::string fresh_module_dir(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string dir = scratch_dir() + "/" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const auto& [file, source] : files) std::filesystem::copy_file(source, dir + "/" + file);
    return dir;
}

/// `shedlock args...` with SHEDLOCK_PROVIDER_DIR=dir.
cli_result run_cli_with_modules(const std::string& dir, const std::vector<std::string>& args) {
    ::setenv("SHEDLOCK_PROVIDER_DIR", dir.c_str(), 1);
    auto r = run_cli(args);
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    return r;
}

/// Where a test module records that its code ran (test_provider_module.cpp).
std::string module_marker(const std::string& name) {
    const std::string marker = scratch_dir() + "/" + name + ".ran";
    std::filesystem::remove(marker);
    ::setenv("SHEDLOCK_TEST_MODULE_MARKER", marker.c_str(), 1);
    return marker;
}

/// The directory of the shared core (libshedlock-core.so.<ABI>) the program and its modules link.
std::string core_dir() { return std::filesystem::path(SHEDLOCK_CLI_CORE).parent_path().string(); }

/// A copy of the program in `bin`, with the shared core where its RUNPATH ($ORIGIN/...) looks.
void copy_program(const std::filesystem::path& bin) {
    const std::filesystem::path cli(SHEDLOCK_CLI_PATH);
    const auto core = (bin / std::filesystem::path(core_dir()).lexically_relative(cli.parent_path())).lexically_normal();
    std::filesystem::create_directories(core);
    std::filesystem::copy_file(cli, bin / "shedlock");
    std::filesystem::copy_file(SHEDLOCK_CLI_CORE, core / std::filesystem::path(SHEDLOCK_CLI_CORE).filename());
}

/// The first `bytes` bytes of `source` as `target`: a copy cut short (a full disk, an interrupted
/// download or package install).
void write_truncated_copy(const std::string& source, const std::string& target, std::size_t bytes) {
    std::string data = read_file(source);
    REQUIRE(data.size() > bytes);
    data.resize(bytes);
    std::ofstream(target, std::ios::binary | std::ios::trunc) << data;
}

}  // namespace

TEST_CASE("cli run: only --config loads the config module (toml++, date-tz, the scheduler)", "[cli][modules]") {
    const std::vector<std::string> show_maps{"--", "sh", "-c", "cat /proc/$PPID/maps"};
    auto args = std::vector<std::string>{"run", "-p", sqlite_uri(), "-n", "plain", "--at-most", "10s"};
    args.insert(args.end(), show_maps.begin(), show_maps.end());
    const auto plain = run_cli(args);
    REQUIRE(plain.status == 0);
    for (const char* heavy : {"cli/config.so", "libtomlplusplus", "libdate-tz"}) {
        INFO(heavy);
        CHECK_THAT(plain.out, !Contains(heavy));
    }
    const std::string config = scratch_dir() + "/modules.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << sqlite_uri() << "\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    args = {"run", "-c", config, "--task", "t"};
    args.insert(args.end(), show_maps.begin(), show_maps.end());
    const auto configured = run_cli(args);
    INFO(configured.err);
    REQUIRE(configured.status == 0);
    CHECK_THAT(configured.out, Contains("cli/config.so") && Contains("libtomlplusplus"));
}

TEST_CASE("cli run: a SQLite run maps no other backend's client library", "[cli][modules]") {
    const auto r = run_cli({"run", "-p", sqlite_uri(), "-n", "modules", "--at-most", "10s", "--", "sh", "-c",
                            "cat /proc/$PPID/maps"});
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("libsqlite3") && Contains("providers/sqlite.so"));
    for (const char* other : {"libpq", "libmariadb", "libhiredis", "libssl", "libcrypto", "postgres.so", "mysql.so",
                              "redis.so"}) {
        INFO(other);
        CHECK_THAT(r.out, !Contains(other));
    }
}

TEST_CASE("cli: a missing provider module names the file and the fix", "[cli][modules]") {
    ::setenv("SHEDLOCK_PROVIDER_DIR", module_dir_with({}).c_str(), 1);
    const auto r = run_cli({"run", "-p", sqlite_uri(), "-n", "modules", "--at-most", "10s", "--", "true"});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cannot load the sqlite provider module") && Contains("/modules/sqlite.so") &&
                          Contains("SHEDLOCK_PROVIDER_DIR"));
}

TEST_CASE("cli: a module that registers other schemes than this build declared is refused", "[cli][modules]") {
    // The memory module under the SQLite module's name: it loads, but registers memory:.
    ::setenv("SHEDLOCK_PROVIDER_DIR", module_dir_with({{"sqlite.so", SHEDLOCK_MEMORY_MODULE}}).c_str(), 1);
    const auto r = run_cli({"schema", "apply", "-p", sqlite_uri()});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("sqlite.so registers the schemes memory:") && Contains("reinstall"));
}

TEST_CASE("cli: a file that is no shedlock module is refused before it runs", "[cli][modules]") {
    const std::string dir = module_dir_with({});
    {
        std::FILE* f = std::fopen((dir + "/redis.so").c_str(), "w");
        REQUIRE(f);
        std::fputs("not a shared object\n", f);
        std::fclose(f);
    }
    ::setenv("SHEDLOCK_PROVIDER_DIR", dir.c_str(), 1);
    const auto r = run_cli({"locks", "-p", "redis://127.0.0.1:1/0"});
    ::unsetenv("SHEDLOCK_PROVIDER_DIR");
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cannot load the redis provider module") && Contains("redis.so"));
}


TEST_CASE("cli: a module of another build with the same version is refused before its code runs", "[cli][modules]") {
    // The foreign test module carries this build's version and another build's identity; run, it
    // aborts (a changed struct of core crashed the program in ~backend_registration).
    const std::string marker = module_marker("foreign");
    const auto r = run_cli_with_modules(fresh_module_dir("foreign", {{"sqlite.so", SHEDLOCK_TEST_MODULE_FOREIGN}}),
                                        {"schema", "apply", "-p", sqlite_uri()});
    INFO(r.err);
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("sqlite.so is not a provider module of shedlock") && Contains("another build"));
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("cli: a truncated provider module is refused before dlopen, not killed by SIGBUS", "[cli][modules]") {
    const std::string dir = fresh_module_dir("truncated", {});
    const auto whole = std::filesystem::file_size(SHEDLOCK_MEMORY_MODULE);
    for (const std::size_t bytes : {std::size_t{64}, std::size_t{4096}, static_cast<std::size_t>(whole / 2),
                                    static_cast<std::size_t>(whole - 1)}) {
        INFO("first " << bytes << " of " << whole << " bytes");
        write_truncated_copy(SHEDLOCK_MEMORY_MODULE, dir + "/memory.so", bytes);
        const auto r = run_cli_with_modules(dir, {"schema", "apply", "-p", "memory:"});
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("cannot load the memory provider module") && Contains("memory.so") &&
                              Contains("truncated"));
    }
}

TEST_CASE("cli: a module that registers no scheme gets advice for a CLI user, not a library's", "[cli][modules]") {
    const std::string marker = module_marker("empty");
    const auto r = run_cli_with_modules(fresh_module_dir("empty", {{"sqlite.so", SHEDLOCK_TEST_MODULE_OWN}}),
                                        {"schema", "apply", "-p", sqlite_uri()});
    CHECK(r.status == 78);
    CHECK(std::filesystem::exists(marker));  // this build's module: accepted and run
    CHECK_THAT(r.err, Contains("sqlite.so registers no scheme") && Contains("reinstall the shedlock package") &&
                          Contains("SHEDLOCK_PROVIDER_DIR") && !Contains("register_all_providers"));
}

TEST_CASE("cli: without /proc no module is loaded relative to the current directory", "[cli][modules]") {
    // A minimal container or chroot without /proc, simulated by a mount namespace whose /proc is
    // an empty tmpfs (unshare, util-linux). A module is planted where "." + the path from the
    // program to its modules leads, i.e. relative to the directory the command is started in.
    const std::filesystem::path cli_dir = std::filesystem::path(SHEDLOCK_CLI_PATH).parent_path();
    const auto from_bin = std::filesystem::path(SHEDLOCK_MEMORY_MODULE).parent_path().lexically_relative(cli_dir);
    const std::filesystem::path cwd = scratch_dir() + "/noproc/work";
    const auto planted = (cwd / from_bin).lexically_normal();
    std::filesystem::create_directories(cwd);
    std::filesystem::create_directories(planted);
    std::filesystem::copy_file(SHEDLOCK_TEST_MODULE_OWN, planted / "sqlite.so");
    const std::string marker = module_marker("planted");
    const std::string out = scratch_dir() + "/noproc/stderr";
    // Without /proc the program finds its shared core through the install directory in its RUNPATH
    // ($ORIGIN needs /proc/self/exe); a build tree's core is not there, so it is named here.
    const std::string script = "mount -t tmpfs none /proc && test ! -e /proc/self/exe && cd '" + cwd.string() +
                               "' && LD_LIBRARY_PATH='" + core_dir() + "' exec '" SHEDLOCK_CLI_PATH "' schema apply -p '" + sqlite_uri() + "' 2>'" + out + "'";
    const int wait_status = std::system(("unshare --map-root-user --mount sh -c \"" + script + "\"").c_str());
    const std::string err = read_file(out);
    INFO("planted " << (planted / "sqlite.so").string() << "\n" << err);
    REQUIRE_FALSE(err.empty());  // the namespace was made and the program ran (unshare needs util-linux)
    CHECK(exit_status_of(wait_status) == 78);
    CHECK_FALSE(std::filesystem::exists(marker));
    CHECK_THAT(err, !Contains(planted.string()) && Contains("sqlite.so"));
}

TEST_CASE("cli: a truncated config module is refused before dlopen, not killed by SIGBUS", "[cli][modules]") {
    // The config module is found beside the program only (no variable moves it): a copy of the
    // program in a directory of its own, with the install layout's path to a truncated config.so.
    const std::filesystem::path cli(SHEDLOCK_CLI_PATH);
    const std::filesystem::path modules = std::filesystem::path(SHEDLOCK_MEMORY_MODULE).parent_path().parent_path();
    const std::filesystem::path config_so = modules / "cli" / "config.so";
    const std::filesystem::path root = scratch_dir() + "/truncated-config";
    const auto copy_bin = root / "bin";
    const auto copy_config = (copy_bin / config_so.parent_path().lexically_relative(cli.parent_path())).lexically_normal();
    std::filesystem::create_directories(copy_bin);
    std::filesystem::create_directories(copy_config);
    copy_program(copy_bin);
    write_truncated_copy(config_so.string(), (copy_config / "config.so").string(), 4096);
    const std::string config = root.string() + "/shedlock.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"memory:\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    const std::string err = root.string() + "/stderr";
    const int wait_status = std::system(("'" + (copy_bin / "shedlock").string() + "' run -c '" + config +
                                         "' --task t -- true 2>'" + err + "'").c_str());
    INFO(read_file(err));
    CHECK(exit_status_of(wait_status) == 78);
    CHECK_THAT(read_file(err), Contains("cannot load the config module") && Contains("config.so is truncated"));
}

TEST_CASE("cli: a FIFO or device in place of a provider module is refused, not waited on", "[cli][modules]") {
    // open(O_RDONLY) of a FIFO waits for a writer: the CLI hung for good (cron stacked them up).
    // The run is bounded by `timeout` so that a regression fails (124) instead of hanging ctest.
    const std::string dir = fresh_module_dir("special", {});
    REQUIRE(::mkfifo((dir + "/sqlite.so").c_str(), 0644) == 0);
    std::filesystem::create_symlink("/dev/zero", dir + "/memory.so");
    for (const auto& [scheme, uri, kind] : {std::tuple{"sqlite", sqlite_uri(), "a FIFO"},
                                            std::tuple{"memory", std::string("memory:"), "a character device"}}) {
        INFO(scheme);
        const std::string err = scratch_dir() + "/special.err";
        const int wait_status = std::system(("SHEDLOCK_PROVIDER_DIR='" + dir + "' timeout 60 '" SHEDLOCK_CLI_PATH
                                             "' locks -p '" + uri + "' 2>'" + err + "'").c_str());
        const std::string message = read_file(err);
        INFO(message);
        CHECK(exit_status_of(wait_status) == 78);
        CHECK_THAT(message, Contains(dir + "/" + scheme + ".so is not a regular file (it is " + kind + ")") &&
                                Contains("reinstall the shedlock package"));
    }
}

TEST_CASE("cli: an ELF header whose sizes wrap past 2^64 is refused before dlopen", "[cli][modules]") {
    // A loaded segment of 0xFFFFFFFFFFFFFFFF bytes: p_offset + p_filesz wrapped to a small number,
    // passed the truncation check, and dlopen died of SIGSEGV. The same for the header tables'
    // offset + count * entry size.
    const std::string dir = fresh_module_dir("wrapping", {});
    const std::string whole = read_file(SHEDLOCK_MEMORY_MODULE);
    REQUIRE(whole.size() > 64);
    const auto u16_at = [&](std::size_t at) { return std::uint16_t(std::uint8_t(whole[at]) | std::uint8_t(whole[at + 1]) << 8); };
    std::uint64_t phoff = 0;
    for (int i = 7; i >= 0; --i) phoff = phoff << 8 | std::uint8_t(whole[0x20 + i]);
    const std::uint16_t phentsize = u16_at(0x36), phnum = u16_at(0x38);
    REQUIRE(phentsize == 56);
    std::size_t last_load = 0;  // the program header of the last PT_LOAD (p_type 1)
    for (std::size_t i = 0; i < phnum; ++i)
        if (whole[phoff + i * phentsize] == 1) last_load = phoff + i * phentsize;
    REQUIRE(last_load != 0);
    const auto with_u64 = [&](std::size_t at, std::uint64_t value) {
        std::string data = whole;
        for (int i = 0; i < 8; ++i) data[at + i] = char(value >> (8 * i) & 0xff);
        return data;
    };
    const std::vector<std::pair<std::string, std::string>> lies{
        {"p_filesz 2^64-1", with_u64(last_load + 32, ~std::uint64_t{0})},
        {"p_offset 2^64-1", with_u64(last_load + 8, ~std::uint64_t{0})},
        {"e_shoff 2^64-1", with_u64(0x28, ~std::uint64_t{0})},
    };
    for (const auto& [what, data] : lies) {
        INFO(what);
        std::ofstream(dir + "/memory.so", std::ios::binary | std::ios::trunc) << data;
        const auto r = run_cli_with_modules(dir, {"schema", "apply", "-p", "memory:"});
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("cannot load the memory provider module") && Contains("memory.so is not a whole shared object"));
    }
}

TEST_CASE("cli: a module of another machine or byte order is refused before dlopen", "[cli][modules]") {
    // An aarch64 (or big-endian) shared object passed the checks; dlopen then said
    // "/proc/self/fd/3: cannot open shared object file: No such file or directory" of a file that is there.
    const std::string dir = fresh_module_dir("foreign-machine", {});
    const std::string whole = read_file(SHEDLOCK_MEMORY_MODULE);
    REQUIRE(whole.size() > 64);
    const auto with_byte = [&](std::size_t at, char value) {
        std::string data = whole;
        data[at] = value;
        return data;
    };
    const char other_machine = whole[0x12] == char(183) ? char(62) : char(183);  // e_machine: aarch64 or x86-64
    const char other_order = whole[5] == char(1) ? char(2) : char(1);            // EI_DATA: MSB or LSB
    const std::vector<std::pair<std::string, std::string>> foreign{
        {"e_machine of another machine", with_byte(0x12, other_machine)},
        {"EI_DATA of the other byte order", with_byte(5, other_order)},
    };
    for (const auto& [what, data] : foreign) {
        INFO(what);
        std::ofstream(dir + "/memory.so", std::ios::binary | std::ios::trunc) << data;
        const auto r = run_cli_with_modules(dir, {"schema", "apply", "-p", "memory:"});
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("memory.so is not a shared object for this machine"));
    }
}

TEST_CASE("cli: a relative SHEDLOCK_PROVIDER_DIR is refused before any module is loaded", "[cli][modules]") {
    // Relative to wherever the command is started: a module planted there ran its constructors
    // before the build-identity check refused it.
    const std::filesystem::path cwd = scratch_dir() + "/relative-dir";
    std::filesystem::remove_all(cwd);
    std::filesystem::create_directories(cwd / "sub");
    std::filesystem::copy_file(SHEDLOCK_TEST_MODULE_FOREIGN, cwd / "sqlite.so");
    std::filesystem::copy_file(SHEDLOCK_TEST_MODULE_FOREIGN, cwd / "sub" / "sqlite.so");
    const std::string loaded = scratch_dir() + "/relative.loaded";
    for (const std::string dir : {".", "sub", "./sub", "../relative-dir"}) {
        INFO("SHEDLOCK_PROVIDER_DIR=" << dir);
        const std::string err = scratch_dir() + "/relative.err";
        std::filesystem::remove(loaded);
        const int wait_status = std::system(("cd '" + cwd.string() + "' && SHEDLOCK_TEST_MODULE_LOADED='" + loaded +
                                             "' SHEDLOCK_PROVIDER_DIR='" + dir + "' '" SHEDLOCK_CLI_PATH
                                             "' locks -p '" + sqlite_uri() + "' 2>'" + err + "'").c_str());
        const std::string message = read_file(err);
        INFO(message);
        CHECK(exit_status_of(wait_status) == 78);
        CHECK_THAT(message, Contains("SHEDLOCK_PROVIDER_DIR \"" + dir + "\" is a relative path") &&
                                Contains("give an absolute path"));
        CHECK_FALSE(std::filesystem::exists(loaded));  // the planted module was not even dlopen'ed
    }
}

TEST_CASE("cli: dlopen's message reaches the terminal as printable text", "[cli][modules]") {
    // dlerror() quotes the file (and, for a damaged module, its strings) byte for byte: a byte
    // that is not UTF-8 went to stderr raw. Here the directory's name carries one.
    const std::string dir = scratch_dir() + "/latin1-\xe9-dir";
    std::filesystem::create_directories(dir);
    const auto r = run_cli_with_modules(dir, {"schema", "apply", "-p", "memory:"});
    INFO(r.err);
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("cannot load the memory provider module") && Contains("latin1-\\xe9-dir"));
    CHECK(r.err.find('\xe9') == std::string::npos);
}

TEST_CASE("cli: a FIFO in place of the config module is refused, not waited on", "[cli][modules]") {
    // As for the truncated config module: a copy of the program whose config.so is a FIFO.
    const std::filesystem::path cli(SHEDLOCK_CLI_PATH);
    const std::filesystem::path modules = std::filesystem::path(SHEDLOCK_MEMORY_MODULE).parent_path().parent_path();
    const std::filesystem::path root = scratch_dir() + "/fifo-config";
    std::filesystem::remove_all(root);
    const auto copy_bin = root / "bin";
    const auto copy_config = (copy_bin / (modules / "cli").lexically_relative(cli.parent_path())).lexically_normal();
    std::filesystem::create_directories(copy_bin);
    std::filesystem::create_directories(copy_config);
    copy_program(copy_bin);
    REQUIRE(::mkfifo((copy_config / "config.so").c_str(), 0644) == 0);
    const std::string config = root.string() + "/shedlock.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"memory:\"\n[tasks.t]\ncron = \"0 0 2 * * ?\"\n"
                             "lock_at_most_for = \"10s\"\ncommand = [\"true\"]\n";
    const std::string err = root.string() + "/stderr";
    const int wait_status = std::system(("timeout 60 '" + (copy_bin / "shedlock").string() + "' daemon -c '" + config +
                                         "' --dry-run 2>'" + err + "'").c_str());
    INFO(read_file(err));
    CHECK(exit_status_of(wait_status) == 78);
    CHECK_THAT(read_file(err), Contains("cannot load the config module") &&
                                   Contains("config.so is not a regular file (it is a FIFO)"));
}

namespace {

/// Where a planted module's static constructor records that dlopen ran it (test_provider_module.cpp).
std::string constructor_marker(const std::string& name) {
    const std::string marker = scratch_dir() + "/" + name + ".loaded";
    std::filesystem::remove(marker);
    ::setenv("SHEDLOCK_TEST_MODULE_LOADED", marker.c_str(), 1);
    return marker;
}

}  // namespace

TEST_CASE("cli: a module of another build or module ABI is refused before dlopen: its constructors never run",
          "[cli][modules]") {
    // The build identity and the ABI are read from the module's ELF note (module_abi.hpp) before
    // dlopen, so not even the static constructor of such a module runs.
    for (const auto& [kind, module, what] :
         {std::tuple{"foreign", SHEDLOCK_TEST_MODULE_FOREIGN, "from another build of that version"},
          std::tuple{"abi", SHEDLOCK_TEST_MODULE_ABI, "a module of interface version"}}) {
        INFO(kind);
        const std::string loaded = constructor_marker(std::string("refused-") + kind);
        const std::string marker = module_marker(std::string("refused-") + kind);
        const auto r = run_cli_with_modules(fresh_module_dir(std::string("refused-") + kind, {{"sqlite.so", module}}),
                                            {"schema", "apply", "-p", sqlite_uri()});
        ::unsetenv("SHEDLOCK_TEST_MODULE_LOADED");
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("sqlite.so is not a provider module of shedlock") && Contains(what) &&
                              Contains("reinstall the shedlock package"));
        CHECK_FALSE(std::filesystem::exists(loaded));
        CHECK_FALSE(std::filesystem::exists(marker));
    }
}

TEST_CASE("cli: a shared object without a shedlock note is refused before dlopen", "[cli][modules]") {
    // A module of the interface before notes, or any other library put in a module's place: here
    // the CLI's own shared core.
    const auto r = run_cli_with_modules(fresh_module_dir("no-note", {{"memory.so", SHEDLOCK_CLI_CORE}}),
                                        {"schema", "apply", "-p", "memory:"});
    INFO(r.err);
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains("memory.so is not a provider module of shedlock") && Contains("no shedlock note"));
}

TEST_CASE("cli: a module registers into the program's registry: one shared core", "[cli][modules]") {
    // The planted module appends "global" when the registry it is given is provider_registry::global()
    // as the module sees it: with a copy of core of its own (as before), it saw another registry.
    // Once through the program's loader, once with the config module loaded beside it.
    const std::string dir = fresh_module_dir("shared-core", {{"sqlite.so", SHEDLOCK_TEST_MODULE_OWN}});
    const std::string config = scratch_dir() + "/shared-core.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << sqlite_uri() << "\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    const std::string log = scratch_dir() + "/shared-core.registry";
    ::setenv("SHEDLOCK_TEST_MODULE_SCHEME", "sqlite", 1);
    ::setenv("SHEDLOCK_TEST_MODULE_REGISTRY", log.c_str(), 1);
    for (const auto& args : {std::vector<std::string>{"locks", "-p", sqlite_uri()},
                             std::vector<std::string>{"run", "-c", config, "--task", "t", "--", "true"}}) {
        INFO(args[0]);
        std::filesystem::remove(log);
        const auto r = run_cli_with_modules(dir, args);
        INFO(r.err);
        CHECK(r.status == 78);  // the test backend opens nothing
        CHECK_THAT(r.err, Contains("has no lock provider"));
        CHECK(read_file(log) == "other\nglobal\n");  // the scratch registry, then the program's
    }
    ::unsetenv("SHEDLOCK_TEST_MODULE_SCHEME");
    ::unsetenv("SHEDLOCK_TEST_MODULE_REGISTRY");
}

TEST_CASE("cli: a run maps one shared core, shared by the program and its modules", "[cli][modules]") {
    const std::string config = scratch_dir() + "/one-core.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"" << sqlite_uri() << "\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    const auto r = run_cli({"run", "-c", config, "--task", "t", "--", "sh", "-c", "cat /proc/$PPID/maps"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.out, Contains("providers/sqlite.so") && Contains("cli/config.so") && Contains("libshedlock-core.so"));
    std::set<std::string> cores;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (line.find("libshedlock-core") != std::string::npos) cores.insert(line.substr(line.rfind(' ') + 1));
    CHECK(cores.size() == 1);
}

TEST_CASE("cli: a provider module in place of the config module is refused before dlopen", "[cli][modules]") {
    // As for the truncated config module: a copy of the program, whose config.so is a provider module.
    const std::filesystem::path cli(SHEDLOCK_CLI_PATH);
    const std::filesystem::path modules = std::filesystem::path(SHEDLOCK_MEMORY_MODULE).parent_path().parent_path();
    const std::filesystem::path root = scratch_dir() + "/provider-as-config";
    std::filesystem::remove_all(root);
    const auto copy_bin = root / "bin";
    const auto copy_config = (copy_bin / (modules / "cli").lexically_relative(cli.parent_path())).lexically_normal();
    std::filesystem::create_directories(copy_bin);
    std::filesystem::create_directories(copy_config);
    copy_program(copy_bin);
    std::filesystem::copy_file(SHEDLOCK_TEST_MODULE_OWN, copy_config / "config.so");
    const std::string config = root.string() + "/shedlock.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"memory:\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    const std::string err = root.string() + "/stderr";
    const std::string loaded = root.string() + "/loaded";
    const int wait_status = std::system(("SHEDLOCK_TEST_MODULE_LOADED='" + loaded + "' '" +
                                         (copy_bin / "shedlock").string() + "' run -c '" + config +
                                         "' --task t -- true 2>'" + err + "'").c_str());
    INFO(read_file(err));
    CHECK(exit_status_of(wait_status) == 78);
    CHECK_THAT(read_file(err), Contains("cannot load the config module") && Contains("another kind of shedlock module"));
    CHECK_FALSE(std::filesystem::exists(loaded));
}

TEST_CASE("cli: a module whose note was altered is refused before dlopen", "[cli][modules]") {
    // The memory module with its note (module_abi.hpp: sizes, type, "shedlock", ABI, build) edited
    // in place: another ABI number, a description size past the segment, another kind of module.
    const std::string whole = read_file(SHEDLOCK_MEMORY_MODULE);
    const std::string owner("shedlock\0\0\0\0", 12);
    const std::size_t at = whole.find(owner);
    REQUIRE(at != std::string::npos);
    REQUIRE(at >= 12);
    const std::size_t note = at - 12;  // n_namesz, n_descsz, n_type, then the owner
    const auto with_u32 = [&](std::size_t offset, std::uint32_t value) {
        std::string data = whole;
        for (int i = 0; i < 4; ++i) data[offset + i] = char(value >> (8 * i) & 0xff);
        return data;
    };
    const std::string dir = fresh_module_dir("altered-note", {});
    for (const auto& [what, data, message] :
         {std::tuple{"ABI 7", with_u32(at + 12, 7), "a module of interface version 7"},
          std::tuple{"description size 2^32-1", with_u32(note + 4, 0xffffffffu), "no shedlock note"},
          std::tuple{"kind 2 (config)", with_u32(note + 8, 2), "another kind of shedlock module"}}) {
        INFO(what);
        std::ofstream(dir + "/memory.so", std::ios::binary | std::ios::trunc) << data;
        const auto r = run_cli_with_modules(dir, {"schema", "apply", "-p", "memory:"});
        INFO(r.err);
        CHECK(r.status == 78);
        CHECK_THAT(r.err, Contains("memory.so is not a provider module of shedlock") && Contains(message));
    }
}

TEST_CASE("cli: dlopen maps the very file that was checked, through its descriptor", "[cli][modules]") {
    // The file is opened once, checked, and dlopen'ed as /proc/self/fd/N (module_files.hpp): a
    // module swapped in by path between the check and dlopen is not the one mapped. The dynamic
    // loader's own trace (LD_DEBUG=files) names what it was asked to open.
    const std::string trace = scratch_dir() + "/dlopen-trace";  // the loader appends .<pid>
    const auto is_trace = [](const std::filesystem::path& p) { return p.filename().string().rfind("dlopen-trace", 0) == 0; };
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
        if (is_trace(entry.path())) std::filesystem::remove(entry.path());
    ::setenv("LD_DEBUG", "files", 1);
    ::setenv("LD_DEBUG_OUTPUT", trace.c_str(), 1);
    const auto r = run_cli({"schema", "apply", "-p", "memory:"});
    ::unsetenv("LD_DEBUG");
    ::unsetenv("LD_DEBUG_OUTPUT");
    INFO(r.err);
    REQUIRE(r.status == 0);
    std::string loaded;
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
        if (is_trace(entry.path())) loaded += read_file(entry.path().string());
    CHECK_THAT(loaded, Contains("file=/proc/self/fd/") && !Contains("providers/memory.so"));
}

TEST_CASE("cli: no library is loaded from the current directory", "[cli][modules]") {
    // An empty RUNPATH entry (CMake pads its build RPATH with ':') is the current directory to
    // glibc: the program loaded a libm.so.6 planted there. Libraries the program and the SQLite
    // module need, planted as garbage in the directory the command starts in.
    const std::filesystem::path cwd = scratch_dir() + "/planted-libraries";
    std::filesystem::remove_all(cwd);
    std::filesystem::create_directories(cwd);
    for (const char* library : {"libm.so.6", "libstdc++.so.6", "libc.so.6", "libsqlite3.so.0", "libshedlock-core.so.1"})
        std::ofstream(cwd / library) << "not a library\n";
    const std::string err = scratch_dir() + "/planted-libraries.err";
    const int wait_status = std::system(("cd '" + cwd.string() + "' && '" SHEDLOCK_CLI_PATH "' run -p '" + sqlite_uri() +
                                         "' -n planted --at-most 10s -- true 2>'" + err + "'").c_str());
    INFO(read_file(err));
    CHECK(exit_status_of(wait_status) == 0);
}

TEST_CASE("cli: a shared core of another build is refused before a module is loaded", "[cli][modules]") {
    // LD_LIBRARY_PATH comes before the program's RUNPATH: naming another installation's
    // <libdir>/shedlock gave the program that installation's libshedlock-core.so.1, and the
    // program and its modules (of one build, as their notes said) ran on a core of another.
    const std::string module = read_file(SHEDLOCK_MEMORY_MODULE);
    const std::string owner("shedlock\0\0\0\0", 12);  // the note's owner, padded; then the ABI, then the identity
    const auto note = module.find(owner);
    REQUIRE(note != std::string::npos);
    const std::string build = module.c_str() + note + owner.size() + 4;
    REQUIRE(build.size() > 8);
    std::string core = read_file(SHEDLOCK_CLI_CORE);
    const auto at = core.find(build + '\0');
    REQUIRE(at != std::string::npos);  // the core knows the build it was made in
    char& last = core[at + build.size() - 1];
    last = last == '0' ? '1' : '0';  // another build of the same version
    const std::string dir = fresh_module_dir("foreign-core", {});
    std::ofstream(dir + "/" + std::filesystem::path(SHEDLOCK_CLI_CORE).filename().string(), std::ios::binary) << core;
    const char* outer = std::getenv("LD_LIBRARY_PATH");
    const std::string kept = outer ? outer : "";
    ::setenv("LD_LIBRARY_PATH", dir.c_str(), 1);
    const auto r = run_cli({"run", "-p", sqlite_uri(), "-n", "foreign-core", "--at-most", "10s", "--", "true"});
    outer ? ::setenv("LD_LIBRARY_PATH", kept.c_str(), 1) : ::unsetenv("LD_LIBRARY_PATH");
    INFO(r.err);
    CHECK(r.status == 78);
    CHECK_THAT(r.err, Contains(dir + "/libshedlock-core.so.1 is from another build") && Contains("LD_LIBRARY_PATH"));
}

TEST_CASE("cli: a module's kept descriptor is never a standard one, even with stdio closed", "[cli][modules]") {
    // Started with stdin and stdout closed, the module was opened as descriptor 0 (then 1) and kept
    // there for glibc, which knows it as /proc/self/fd/0: anything that puts /dev/null on the
    // standard descriptors (dup2) would close it, and the next module opened under that number
    // would be taken for this one.
    const std::string trace = scratch_dir() + "/stdio-trace";  // the loader appends .<pid>
    const auto is_trace = [](const std::filesystem::path& p) { return p.filename().string().rfind("stdio-trace", 0) == 0; };
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
        if (is_trace(entry.path())) std::filesystem::remove(entry.path());
    const std::string err = scratch_dir() + "/stdio-closed.err";
    const int wait_status = std::system(("LD_DEBUG=files LD_DEBUG_OUTPUT='" + trace + "' '" SHEDLOCK_CLI_PATH
                                         "' schema apply -p memory: <&- >&- 2>'" + err + "'").c_str());
    INFO(read_file(err));
    REQUIRE(exit_status_of(wait_status) == 0);
    std::string loaded;
    for (const auto& entry : std::filesystem::directory_iterator(scratch_dir()))
        if (is_trace(entry.path())) loaded += read_file(entry.path().string());
    CHECK_THAT(loaded, Contains("file=/proc/self/fd/") && !Contains("file=/proc/self/fd/0 ") &&
                           !Contains("file=/proc/self/fd/1 ") && !Contains("file=/proc/self/fd/2 "));
}

TEST_CASE("cli: a module loads no library from beside its directory, with or without /proc", "[cli][modules]") {
    // A module's RUNPATH of $ORIGIN/.. named /proc/self when it was mapped through /proc/self/fd/N,
    // and without /proc the parent of SHEDLOCK_PROVIDER_DIR: a libsqlite3.so.0 planted there was
    // loaded. Modules need only the shared core, which the program has loaded already.
    const std::string parent = fresh_module_dir("beside-modules", {});
    const std::string dir = parent + "/providers";
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(std::filesystem::path(SHEDLOCK_MEMORY_MODULE).parent_path() / "sqlite.so", dir + "/sqlite.so");
    for (const char* library : {"libsqlite3.so.0", "libstdc++.so.6", "libshedlock-core.so.1"})
        std::ofstream(parent + "/" + library) << "not a library\n";
    const std::string err = parent + "/stderr";
    const std::string run = "SHEDLOCK_PROVIDER_DIR='" + dir + "' '" SHEDLOCK_CLI_PATH "' schema apply -p '" + sqlite_uri() +
                            "' 2>'" + err + "'";
    INFO(run);
    const int with_proc = std::system(run.c_str());
    INFO(read_file(err));
    CHECK(exit_status_of(with_proc) == 0);
    // Without /proc (an empty tmpfs over it, as in the test above) the module is loaded by path.
    const std::string script = "mount -t tmpfs none /proc && test ! -e /proc/self/exe && LD_LIBRARY_PATH='" + core_dir() +
                               "' " + run;
    const int without_proc = std::system(("unshare --map-root-user --mount sh -c \"" + script + "\"").c_str());
    const std::string shown = read_file(err);
    INFO(shown);
    CHECK(exit_status_of(without_proc) == 0);
    CHECK_THAT(shown, !Contains("not a library") && !Contains("invalid ELF header"));
}

TEST_CASE("cli: a module not loaded for want of descriptors gets ulimit advice, not reinstall", "[cli][modules]") {
    // With RLIMIT_NOFILE 4, the module's file is descriptor 3 and dlopen's own open fails (EMFILE):
    // reinstalling the package would not help, raising the limit does.
    const std::string config = scratch_dir() + "/few-descriptors.toml";
    std::ofstream(config) << "[shedlock]\nprovider = \"memory:\"\n[tasks.t]\nlock_at_most_for = \"10s\"\n";
    const std::string err = scratch_dir() + "/few-descriptors.err";
    // The program must start with 0-2 only, whatever the test runner left open (ctest's pipes):
    // the script closes every inherited descriptor above 2 before it lowers the limit (bash: dash
    // takes no descriptor number above 9).
    const std::string few_descriptors = scratch_dir() + "/few-descriptors.sh";
    std::ofstream(few_descriptors) << "for f in /proc/self/fd/*; do n=${f##*/}\n"
                                      "  if [ \"$n\" -gt 2 ] 2>/dev/null; then eval \"exec $n>&-\"; fi\n"
                                      "done\nulimit -n 4 && exec \"$@\"\n";
    for (const std::string& args : {std::string("schema apply -p memory:"), "run -c '" + config + "' --task t -- true"}) {
        INFO(args);
        const int wait_status =
            std::system(("bash '" + few_descriptors + "' '" SHEDLOCK_CLI_PATH "' " + args + " 2>'" + err + "'").c_str());
        const std::string shown = read_file(err);
        INFO(shown);
        CHECK(exit_status_of(wait_status) == 78);
        CHECK_THAT(shown, Contains("Too many open files") && Contains("ulimit -n") && !Contains("reinstall"));
    }
}

TEST_CASE("cli: a module refused after dlopen keeps no descriptor open, however often it is retried", "[cli][modules]") {
    // The registry loads a module again on each lookup of its scheme after a refusal. A module that
    // dlopens but registers other schemes than declared (this build's test module as memory.so,
    // registering sqlite:) kept its descriptor (and mapping) each time. The planted sqlite module's
    // backend looks memory: up 5 times in the one process and records the open descriptors.
    const std::string dir = fresh_module_dir("refused-retries", {{"sqlite.so", SHEDLOCK_TEST_MODULE_OWN},
                                                                 {"memory.so", SHEDLOCK_TEST_MODULE_OWN}});
    const std::string fds = scratch_dir() + "/refused-retries.fds";
    std::filesystem::remove(fds);
    ::setenv("SHEDLOCK_TEST_MODULE_SCHEME", "sqlite", 1);
    ::setenv("SHEDLOCK_TEST_MODULE_RETRY", "memory:", 1);
    ::setenv("SHEDLOCK_TEST_MODULE_FDS", fds.c_str(), 1);
    const auto r = run_cli_with_modules(dir, {"locks", "-p", sqlite_uri()});
    ::unsetenv("SHEDLOCK_TEST_MODULE_SCHEME");
    ::unsetenv("SHEDLOCK_TEST_MODULE_RETRY");
    ::unsetenv("SHEDLOCK_TEST_MODULE_FDS");
    INFO(r.err);
    CHECK(r.status == 78);
    std::istringstream counts(read_file(fds));
    std::vector<long> seen{std::istream_iterator<long>(counts), std::istream_iterator<long>()};
    INFO("open descriptors after each retry: " << read_file(fds));
    REQUIRE(seen.size() == 5);
    CHECK(seen.front() == seen.back());
}
