// `kube-sandbox etcd`: the embedded store served alone as a single-member etcd, with etcd's
// flags, so that tools which start an etcd (test harnesses, scripts) can start this instead.
// The data directory keeps the store where `serve` keeps it (DIR/store), so both can open it.
#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "cli.h"
#include "common/read_file.h"
#include "data_dir.h"
#include "etcdwire/server.h"
#include "store/store.h"

namespace sandbox {
namespace {

// For calls in flight; watch streams, which never end by themselves, are then cancelled.
constexpr auto kStopGrace = std::chrono::seconds(1);

int run_etcd(const Command& command, const ParsedFlags& flags, CommandContext& ctx) {
  if (!flags.positional.empty()) {
    return usage_error(command, "takes no arguments", ctx);
  }
  const std::string name = flags.get("name", "default");
  // One member: an initial cluster may name only this one.
  if (flags.has("initial-cluster")) {
    for (const auto& member : split_commas(flags.get("initial-cluster"))) {
      if (member.substr(0, member.find('=')) != name) {
        return usage_error(command,
                           "--initial-cluster names " + member +
                               ": kube-sandbox etcd runs a single member (--name " + name + ")",
                           ctx);
      }
    }
  }
  auto client_urls = split_commas(flags.get("listen-client-urls", "http://localhost:2379"));
  if (client_urls.size() != 1) {
    return usage_error(command, "--listen-client-urls: give one URL (a single listener)", ctx);
  }
  std::string error;
  auto listen = etcdwire::ListenUrl::parse(client_urls.front(), error);
  if (!listen) {
    return usage_error(command, "--listen-client-urls " + client_urls.front() + ": " + error, ctx);
  }
  etcdwire::ServerOptions options;
  options.listen = *listen;
  options.member_name = name;
  if (flags.has("max-request-bytes")) {
    const std::string text = flags.get("max-request-bytes");
    size_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1024 ||
        value > (size_t{1} << 30)) {
      return usage_error(command, "--max-request-bytes must be a number from 1024 to 2^30", ctx);
    }
    options.max_request_bytes = value;
  }
  if (listen->tls) {
    if (!flags.has("cert-file") || !flags.has("key-file")) {
      return usage_error(command, "an https:// client URL needs --cert-file and --key-file", ctx);
    }
    etcdwire::TlsFiles tls;
    for (auto [flag, target] :
         {std::pair{"cert-file", &tls.cert_pem}, std::pair{"key-file", &tls.key_pem}}) {
      auto text = common::read_file(flags.get(flag));
      if (!text) {
        ctx.err << "kube-sandbox etcd: --" << flag << ": " << text.error().message << "\n";
        return kExitFailure;
      }
      *target = std::move(*text);
    }
    if (flags.has("client-cert-auth")) {
      if (!flags.has("trusted-ca-file")) {
        return usage_error(command, "--client-cert-auth needs --trusted-ca-file", ctx);
      }
      auto ca = common::read_file(flags.get("trusted-ca-file"));
      if (!ca) {
        ctx.err << "kube-sandbox etcd: --trusted-ca-file: " << ca.error().message << "\n";
        return kExitFailure;
      }
      tls.client_ca_pem = std::move(*ca);
    }
    options.tls = std::move(tls);
  }

  DataDir dir(flags.get("data-dir", name + ".etcd"));
  if (std::string e = dir.ensure_exists(); !e.empty()) {
    ctx.err << "kube-sandbox etcd: " << e << "\n";
    return kExitFailure;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  store::Options store_options;
  store_options.dir = dir.store_dir();
  store_options.durability =
      flags.has("unsafe-no-fsync") ? store::Durability::NoSync : store::Durability::Sync;
  store_options.max_request_bytes = options.max_request_bytes;
  auto opened = store::Store::open(store_options);
  if (!opened.is_ok()) {
    ctx.err << "kube-sandbox etcd: " << opened.status().message() << "\n";
    return kExitFailure;
  }
  std::unique_ptr<store::Store> db = std::move(opened).value();
  auto server = etcdwire::Server::start(*db, options, error);
  if (!server) {
    ctx.err << "kube-sandbox etcd: " << error << "\n";
    return kExitFailure;
  }
  ctx.out << "kube-sandbox etcd: member " << name << " serving the etcd v3 API at " << server->url()
          << " (data dir " << dir.root().string() << ", store revision " << db->current_revision()
          << ")\n"
          << std::flush;
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  ctx.out << "kube-sandbox etcd: " << (signal_number == SIGINT ? "interrupted" : "terminated")
          << ", shutting down\n"
          << std::flush;
  server->shutdown(kStopGrace);
  return kExitOk;
}

}  // namespace

Command etcd_command() {
  Command c;
  c.name = "etcd";
  c.summary = "Serve the embedded store alone as a single-member etcd (etcd's flags)";
  c.synopsis =
      "Usage: kube-sandbox etcd [flags]\n\n"
      "Serves the etcd v3 gRPC API (KV, Watch, Lease, Cluster, Maintenance) and etcd's /health\n"
      "and /version from the embedded store until SIGINT or SIGTERM. It takes etcd's flags, so\n"
      "that tools which start etcd can start it instead. One member, no Raft: the peer and\n"
      "initial-cluster flags are accepted for a cluster of this one member only.\n";
  c.flags = FlagSet({
      {"name", "", true, "NAME", "the member's name (default \"default\")"},
      {"data-dir", "", true, "DIR",
       "where the store lives, in DIR/store as serve keeps it (default NAME.etcd)"},
      {"listen-client-urls", "", true, "URL",
       "the one client URL to serve: http:// or https://, port 0 picks a free port (default "
       "http://localhost:2379)"},
      {"advertise-client-urls", "", true, "URLS", "accepted; member list shows the bound URL"},
      {"listen-peer-urls", "", true, "URLS", "accepted: a single member has no peers"},
      {"initial-advertise-peer-urls", "", true, "URLS", "accepted: no peers"},
      {"initial-cluster", "", true, "NAME=URL", "accepted when it names this member only"},
      {"initial-cluster-state", "", true, "new|existing", "accepted: no peers"},
      {"initial-cluster-token", "", true, "TOKEN", "accepted: no peers"},
      {"cert-file", "", true, "FILE", "the client URL's certificate (https)"},
      {"key-file", "", true, "FILE", "its key"},
      {"trusted-ca-file", "", true, "FILE", "the CA that signs client certificates"},
      {"client-cert-auth", "", false, "", "require client certificates signed by that CA"},
      {"max-request-bytes", "", true, "BYTES", "largest request (default 1572864)"},
      {"unsafe-no-fsync", "", false, "",
       "do not fsync: survives a process crash, not a power loss (for tests)"},
  });
  c.run = [c](const ParsedFlags& flags, CommandContext& ctx) { return run_etcd(c, flags, ctx); };
  return c;
}

}  // namespace sandbox
