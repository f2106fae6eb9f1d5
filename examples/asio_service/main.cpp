// examples/asio_service: an Asio application with shedlock's scheduler on its own io_context.
// ONE io_context run by ONE thread (this one) carries a Beast HTTP endpoint (GET /health) and
// three scheduled coroutine tasks under lock policies (service_tasks.hpp). Lock calls go to the
// backend's non-blocking driver where it has one (Redis, PostgreSQL, MariaDB) and to a pool of
// the session's otherwise (SQLite); run records are appended on the scheduler's pool. Run several
// processes on one backend: each firing runs once in the cluster.
//
//   asio_service [--uri URI] [--port N] [--port-file PATH] [--journal PATH] [--prefix P]
//   URI: --uri, else $ASIO_SERVICE_URI, else sqlite:asio_service.db. SIGTERM/SIGINT: graceful
//   stop (running bodies are told to stop and awaited, their locks released), exit 0.
#include "health_server.hpp"
#include "journal.hpp"
#include "outcome_board.hpp"
#include "service_tasks.hpp"

#include <shedlock/asio/all_drivers.hpp>
#include <shedlock/asio/scheduler.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace {

using namespace std::chrono_literals;

struct arguments {
    std::string uri;
    unsigned short port = 8080;
    std::string port_file;
    std::string journal = "asio_service.journal";
    std::string prefix = "asio-service";
};

arguments parse(int argc, char** argv) {
    arguments a;
    const char* env = std::getenv("ASIO_SERVICE_URI");
    a.uri = env && *env ? env : "sqlite:asio_service.db";
    for (int i = 1; i < argc; i += 2) {
        const std::string key = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(key + " needs a value");
        const std::string value = argv[i + 1];
        if (key == "--uri") a.uri = value;
        else if (key == "--port") a.port = static_cast<unsigned short>(std::stoul(value));
        else if (key == "--port-file") a.port_file = value;
        else if (key == "--journal") a.journal = value;
        else if (key == "--prefix") a.prefix = value;
        else
            throw std::invalid_argument("unknown option \"" + key +
                                        "\"; use --uri URI, --port N, --port-file PATH, --journal PATH, --prefix P");
    }
    return a;
}

/// Written once listening and started: the test waits for it before it polls.
void write_port_file(const std::string& path, unsigned short port) {
    if (path.empty()) return;
    const std::string partial = path + ".partial";
    std::ofstream(partial) << port << '\n';
    std::rename(partial.c_str(), path.c_str());  // appears whole or not at all
}

int run(const arguments& a) {
    shedlock::register_all_async_drivers();
    boost::asio::io_context io{1};  // one thread runs it: the hint lets Asio skip some locking
    shedlock::asio::async_open_request request;
    request.blocking.create_schema = true;  // a demo: a service would have its tables made by an operator
    request.pool_threads = 2;
    // Opening blocks once (connects, checks the tables), before the io_context runs.
    const auto backend = shedlock::asio::open_async_backend(a.uri, io.get_executor(), request);
    asio_service::outcome_board board(backend->blocking().runs());
    asio_service::journal lines(a.journal);

    shedlock::scheduler_options options;
    options.instance = "asio_service:" + std::to_string(::getpid());
    options.worker_threads = 2;  // run-record appends (no blocking bodies here)
    shedlock::asio::scheduler scheduler(io.get_executor(), backend->locks(), board, &backend->claims(), options);
    for (auto& task : asio_service::make_service_tasks(a.prefix, {&lines, &board})) scheduler.add(std::move(task));

    asio_service::health_server http(io.get_executor(), a.port, [&board] { return board.json(); });
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](boost::system::error_code ec, int) {
        if (ec) return;
        http.stop();
        scheduler.async_stop(5s, [&io] { io.stop(); });  // bodies returned, locks released
    });
    scheduler.start();
    http.start();
    std::cout << "asio_service " << ::getpid() << ": " << backend->blocking().backend_name() << ", "
              << backend->locks().describe() << "; GET http://127.0.0.1:"
              << http.port() << "/health" << std::endl;
    write_port_file(a.port_file, http.port());
    io.run();
    std::cout << "asio_service " << ::getpid() << ": stopped" << std::endl;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(parse(argc, argv));
    } catch (const std::exception& e) {
        std::cerr << "asio_service: " << e.what() << '\n';
        return 1;
    }
}
