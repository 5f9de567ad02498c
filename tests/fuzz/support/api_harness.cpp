#include "support/api_harness.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "apiserver/log.h"
#include "apiserver/snapshots.h"

namespace fuzz {

namespace {

constexpr const char* kBaseSnapshot = "base";

[[noreturn]] void harness_failed(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::abort();
}

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ks-fuzz-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    harness_failed("cannot create a temporary directory");
  }
  return pattern;
}

}  // namespace

ApiHarness& ApiHarness::get() {
  static ApiHarness* harness = new ApiHarness();
  return *harness;
}

ApiHarness::ApiHarness() : dir_(make_temp_dir()) {
  // Request and controller logs would drown libFuzzer's output; KS_FUZZ_LOG=1 keeps them.
  // Never destroyed: the server's threads may still log while the process exits.
  if (std::getenv("KS_FUZZ_LOG") == nullptr) {
    apiserver::log::set_sink(new std::ostream(nullptr));
  }
  static const std::filesystem::path cleanup_dir = dir_;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(cleanup_dir, ec);
  });

  store::Options options;
  options.durability = store::Durability::Ephemeral;
  auto opened = store::Store::open(options);
  if (!opened.is_ok()) {
    harness_failed("cannot open the store: " + opened.status().message());
  }
  store_ = std::move(opened).value();
  apiserver::ApiServerConfig config;
  config.tokens[kAdminToken] = {"fuzz-admin", {"system:masters"}};
  config.snapshots_dir = dir_ / "snapshots";
  api_ = std::make_unique<apiserver::ApiServer>(*store_, config);
  api_->bootstrap();
  api_->set_ready(true);
  // The base holds what the controllers add to a fresh cluster (service accounts, CA maps).
  while (!api_->controllers_idle()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  apiserver::snapshots::Info info;
  bool existed = false;
  if (auto error =
          apiserver::snapshots::save(*store_, dir_ / "base", kBaseSnapshot, info, existed)) {
    harness_failed("cannot save the base snapshot: " + error.message);
  }
}

void ApiHarness::reset() {
  const auto snapshots = dir_ / "snapshots";
  std::error_code ec;
  std::filesystem::remove_all(snapshots, ec);
  std::filesystem::create_directories(snapshots, ec);
  std::filesystem::copy_file(apiserver::snapshots::file_of(dir_ / "base", kBaseSnapshot),
                             apiserver::snapshots::file_of(snapshots, kBaseSnapshot), ec);
  if (ec) {
    harness_failed("cannot copy the base snapshot: " + ec.message());
  }
  apiserver::snapshots::Restored restored;
  if (auto error = api_->restore_snapshot(kBaseSnapshot, restored)) {
    harness_failed("cannot restore the base snapshot: " + error.message);
  }
  std::filesystem::remove(apiserver::snapshots::file_of(snapshots, kBaseSnapshot), ec);
}

apiserver::http::Response ApiHarness::send(apiserver::http::Request& request) {
  if (++sent_ % kResetEvery == 0) {
    reset();
  }
  if (!request.headers.count("Authorization")) {
    request.headers["Authorization"] = std::string("Bearer ") + kAdminToken;
  }
  (void)apiserver::ApiServer::answers_quickly(request);
  apiserver::http::Response response = api_->handle(request);
  if (response.stream) {
    std::string chunk;
    for (int i = 0; i < 16 && response.stream->next(chunk); ++i) {
    }
    response.stream->close();
  }
  return response;
}

}  // namespace fuzz
