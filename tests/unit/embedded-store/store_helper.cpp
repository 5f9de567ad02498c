// A helper process for the store tests that need a second process:
//   store_helper try-open DIR
//       opens DIR with the default options (take_lock) and exits with the Code of the result.
//   store_helper write DIR PREFIX THREADS
//       opens DIR with Durability::Sync and writes PREFIX/<thread>/<n> = the same text from THREADS
//       threads until killed, printing each key once its put is acknowledged (one line per write).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"

namespace {

int usage() {
  std::fprintf(stderr, "usage: store_helper try-open DIR | write DIR PREFIX THREADS\n");
  return 100;
}

int try_open(const std::string& dir) {
  store::Options options;
  options.dir = dir;
  options.durability = store::Durability::NoSync;
  options.initial_map_size = size_t{64} << 20;
  auto opened = store::Store::open(options);
  if (!opened.is_ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().message().c_str());
  }
  return static_cast<int>(opened.status().code());
}

// One write(2) per line: lines of different threads never interleave (they are below PIPE_BUF).
void print_line(const std::string& line) {
  std::string text = line + "\n";
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(STDOUT_FILENO, data, left);
    if (n <= 0) {
      std::_Exit(101);  // the reader went away
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
}

int write_forever(const std::string& dir, const std::string& prefix, int threads) {
  store::Options options;
  options.dir = dir;
  options.durability = store::Durability::Sync;
  options.initial_map_size = size_t{64} << 20;
  auto opened = store::Store::open(options);
  if (!opened.is_ok()) {
    std::fprintf(stderr, "open: %s\n", opened.status().message().c_str());
    return 102;
  }
  std::unique_ptr<store::Store> store = std::move(opened).value();
  print_line("ready");
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&store, &prefix, t] {
      for (long n = 0;; ++n) {
        store::PutRequest request;
        request.key = prefix + "/" + std::to_string(t) + "/" + std::to_string(n);
        request.value = request.key;
        auto result = store->put(request);
        if (!result.is_ok()) {
          std::fprintf(stderr, "put: %s\n", result.status().message().c_str());
          std::_Exit(103);
        }
        print_line(request.key);
      }
    });
  }
  for (auto& writer : writers) {
    writer.join();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    return usage();
  }
  const std::string mode = argv[1];
  if (mode == "try-open" && argc == 3) {
    return try_open(argv[2]);
  }
  if (mode == "write" && argc == 5) {
    return write_forever(argv[2], argv[3], std::atoi(argv[4]));
  }
  return usage();
}
