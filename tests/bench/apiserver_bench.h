// The ground every part of ks_apiserver_bench stands on: the names it uses, its configuration
// (from the flags) and the error that ends a run.
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.h"

namespace apiserver_bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
namespace fs = std::filesystem;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;
using bench::Clock;
using bench::fixed;
using bench::ms_since;
using bench::percentile;
using json = nlohmann::json;

struct Config {
  fs::path binary;
  std::vector<std::string> modes = {"ephemeral", "durable"};
  int ready_runs = 5;
  int idle_seconds = 2;
  int clients = 16;
  int64_t creates = 20000;
  int64_t gets = 50000;
  int64_t updates = 20000;
  int64_t applies = 1000;
  int list_items = 3000;
  int list_rounds = 20;
  int watchers = 200;
  int watch_writes = 200;
  size_t object_bytes = 256;
  std::chrono::seconds time_cap{20};  // per throughput phase
  std::string json_file;              // "-" for stdout
  bool keep = false;
};

// What ends the run with exit code 1: an HTTP or transport error, a lost or unexpected watch
// event, a server that fails to start or to stop cleanly.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace apiserver_bench
