#include "store_access.h"

#include <system_error>

#include "common/durable_file.h"
#include "common/read_file.h"
#include "etcdwire/client.h"
#include "etcdwire/url.h"

namespace sandbox {

namespace {

std::filesystem::path endpoint_file(const DataDir& dir) {
  return dir.root() / "etcd-endpoint";
}

// The running server's store through its endpoint, or the reason it cannot be reached.
store::Result<std::unique_ptr<store::Store>> reach_server(const DataDir& dir) {
  auto recorded = common::read_file(endpoint_file(dir));
  if (!recorded) {
    return store::Status(store::Code::Locked, locked_message(dir));
  }
  std::string url = *recorded;
  while (!url.empty() && (url.back() == '\n' || url.back() == ' ')) {
    url.pop_back();
  }
  etcdwire::ClientOptions options;
  options.endpoint = url;
  std::string error;
  auto parsed = etcdwire::ListenUrl::parse(url, error);
  if (!parsed) {
    return store::Status(store::Code::InvalidArgument,
                         endpoint_file(dir).string() + ": " + url + ": " + error);
  }
  if (parsed->tls) {
    etcdwire::ClientTls tls;
    for (auto [name, target] :
         {std::pair{"ca.crt", &tls.ca_pem}, std::pair{"admin.crt", &tls.cert_pem},
          std::pair{"admin.key", &tls.key_pem}}) {
      auto text = common::read_file(dir.pki_dir() / name);
      if (!text) {
        return store::Status(store::Code::Io, text.error().message);
      }
      *target = std::move(*text);
    }
    options.tls = std::move(tls);
  }
  auto connected = etcdwire::connect(options);
  if (!connected.is_ok()) {
    return store::Status(connected.status().code(),
                         "the data directory " + dir.root().string() +
                             " is held by a running server, whose etcd endpoint " + url +
                             " does not answer: " + connected.status().message());
  }
  return connected;
}

}  // namespace

std::string locked_message(const DataDir& dir) {
  return "the data directory " + dir.root().string() +
         " is held by another process (a running kube-sandbox server?); stop it first, or use "
         "the server's API";
}

OpenedStore open_store(const Command& command, const ParsedFlags& flags, OpenMode mode,
                       CommandContext& ctx) {
  OpenedStore opened;
  auto dir = resolve_data_dir(flags);
  if (!dir) {
    // An empty --data-dir is a wrong command line; no HOME is a wrong environment.
    opened.exit_code = flags.has("data-dir") ? usage_error(command, dir.error(), ctx)
                                             : command_failure(command, dir.error(), ctx);
    return opened;
  }
  opened.dir = std::move(*dir);
  std::error_code ec;
  if (mode == OpenMode::MustExist && !std::filesystem::is_directory(opened.dir->store_dir(), ec)) {
    opened.exit_code = command_failure(command,
                                       "no store in " + opened.dir->root().string() +
                                           " (nothing was written there yet; see --data-dir)",
                                       ctx);
    return opened;
  }
  if (std::string e = opened.dir->ensure_exists(); !e.empty()) {
    opened.exit_code = command_failure(command, e, ctx);
    return opened;
  }
  store::Options options;
  options.dir = opened.dir->store_dir();
  options.durability = store::Durability::Sync;
  options.take_lock = true;
  auto result = store::Store::open(std::move(options));
  if (result.is_ok()) {
    opened.store = std::move(result).value();
    return opened;
  }
  if (result.status().code() != store::Code::Locked) {
    opened.exit_code = command_failure(command, result.status().message(), ctx);
    return opened;
  }
  auto remote = reach_server(*opened.dir);
  if (!remote.is_ok()) {
    opened.exit_code = command_failure(command, remote.status().message(), ctx);
    return opened;
  }
  opened.store = std::move(remote).value();
  return opened;
}

void record_etcd_endpoint(const DataDir& dir, const std::string& url) {
  (void)common::write_file_durably(endpoint_file(dir), url + "\n", 0600);
}

void forget_etcd_endpoint(const DataDir& dir) {
  std::error_code ec;
  std::filesystem::remove(endpoint_file(dir), ec);
}

}  // namespace sandbox
