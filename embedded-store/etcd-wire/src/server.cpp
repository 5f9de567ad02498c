#include "etcdwire/server.h"

#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <limits>

#include "client_listener.h"
#include "kv_service.h"
#include "lease_service.h"
#include "maintenance_service.h"
#include "member.h"
#include "watch_service.h"

namespace etcdwire {

namespace {

// gRPC's framing around the largest request etcd accepts (etcd adds the same margin).
constexpr size_t kGrpcOverhead = 512 * 1024;

class GrpcServer final : public Server {
 public:
  GrpcServer(store::Store& store, const ServerOptions& options)
      : member_(store, options.member_name),
        kv_(member_),
        watch_(member_, WatchLimits{options.max_watches_per_stream, options.max_request_bytes}),
        lease_(member_),
        maintenance_(member_),
        cluster_(member_) {}

  bool listen(const ServerOptions& options, std::string& error) {
    std::shared_ptr<grpc::ServerCredentials> credentials;
    if (options.listen.tls) {
      if (!options.tls) {
        error = "https needs a certificate and a key";
        return false;
      }
      grpc::SslServerCredentialsOptions ssl(
          options.tls->client_ca_pem.empty()
              ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
      ssl.pem_root_certs = options.tls->client_ca_pem;
      ssl.pem_key_cert_pairs.push_back({options.tls->key_pem, options.tls->cert_pem});
      credentials = grpc::SslServerCredentials(ssl);
    } else {
      credentials = grpc::InsecureServerCredentials();
    }
    grpc::ServerBuilder builder;
    int bound = 0;
    if (options.listen.tls) {
      std::string address = options.listen.host.find(':') != std::string::npos
                                ? "[" + options.listen.host + "]"
                                : options.listen.host;
      address += ":" + std::to_string(options.listen.port);
      builder.AddListeningPort(address, credentials, &bound);
    } else {
      // Plain HTTP: our listener takes the connections and hands gRPC's over.
      listener_ = ClientListener::open(options.listen.host, options.listen.port, error);
      if (!listener_) {
        return false;
      }
      bound = listener_->port();
    }
    builder.SetMaxReceiveMessageSize(static_cast<int>(options.max_request_bytes + kGrpcOverhead));
    builder.SetMaxSendMessageSize(std::numeric_limits<int>::max());
    // etcd's server keepalive: a ping after 2 h of silence, 20 s to answer it; clients may
    // ping every 5 s, also without calls.
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 2 * 60 * 60 * 1000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20 * 1000);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // Two servers on one port would split its clients between them: the second must fail.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // The synchronous unary handlers (reads, leases, maintenance; the KV writes are callback
    // methods) may block in the store. gRPC's default keeps at most two idle pollers and ends
    // the threads above that, so a busy endpoint would create and end a thread per call;
    // keeping the handler threads instead costs memory only.
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 4);
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                                options.max_threads);
    grpc::ResourceQuota quota("etcd-endpoint");
    quota.SetMaxThreads(options.max_threads);
    builder.SetResourceQuota(quota);
    builder.RegisterService(&kv_);
    builder.RegisterService(&watch_);
    builder.RegisterService(&lease_);
    builder.RegisterService(&maintenance_);
    builder.RegisterService(&cluster_);
    server_ = builder.BuildAndStart();
    if (!server_ || (options.listen.tls && bound == 0)) {
      error = "cannot listen on " + options.listen.to_string() +
              " (the address is in use or not this machine's)";
      server_.reset();
      return false;
    }
    if (listener_) {
      listener_->start(server_.get(), [this](const std::string& path) { return http(path); });
    }
    ListenUrl actual = options.listen;
    actual.port = static_cast<uint16_t>(bound);
    url_ = actual.to_string();
    member_.set_client_url(url_);
    return true;
  }

  ~GrpcServer() override { shutdown(std::chrono::milliseconds(0)); }

  std::string url() const override { return url_; }
  uint64_t member_id() const override { return member_.member_id(); }
  uint64_t cluster_id() const override { return member_.cluster_id(); }

  void shutdown(std::chrono::milliseconds grace) override {
    if (listener_) {
      listener_->stop();
    }
    if (server_) {
      server_->Shutdown(std::chrono::system_clock::now() + grace);
      server_->Wait();
      server_.reset();
    }
  }

 private:
  // etcd's HTTP endpoints on the client port: /health (a read of the store, and no alarm) and
  // /version.
  HttpAnswer http(const std::string& path) {
    if (path == "/health") {
      if (!member_.alarms().empty()) {
        return {503, R"({"health":"false","reason":"ALARM ACTIVE"})"};
      }
      store::RangeRequest probe;
      probe.key = "health";
      if (!member_.store().range(probe).is_ok()) {
        return {503, R"({"health":"false","reason":"RANGE ERROR"})"};
      }
      return {200, R"({"health":"true","reason":""})"};
    }
    if (path == "/version") {
      return {200,
              std::string(R"({"etcdserver":")") + kEtcdVersion + R"(","etcdcluster":"3.5.0"})"};
    }
    return {404, "404 page not found\n"};
  }

  Member member_;
  KvService kv_;
  WatchService watch_;
  LeaseService lease_;
  MaintenanceService maintenance_;
  ClusterService cluster_;
  std::unique_ptr<ClientListener> listener_;
  std::unique_ptr<grpc::Server> server_;
  std::string url_;
};

}  // namespace

std::unique_ptr<Server> Server::start(store::Store& store, ServerOptions options,
                                      std::string& error) {
  auto server = std::make_unique<GrpcServer>(store, options);
  if (!server->listen(options, error)) {
    return nullptr;
  }
  return server;
}

}  // namespace etcdwire
