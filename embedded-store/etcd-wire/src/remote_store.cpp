// etcdwire::connect: the store::Store that calls an etcd v3 endpoint.
#include <arpa/inet.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

#include "common/durable_file.h"
#include "convert.h"
#include "etcdserverpb/rpc.grpc.pb.h"
#include "etcdwire/client.h"
#include "etcdwire/url.h"
#include "remote_watcher.h"
#include "wire_status.h"

namespace etcdwire {

namespace pb = etcdserverpb;

namespace {

constexpr size_t kChecksumBytes = 32;  // the SHA-256 etcd appends to a snapshot stream

store::Status not_over_the_wire(const char* what) {
  return {store::Code::InvalidArgument,
          std::string(what) +
              " is not part of etcd's API: run it on the data directory with "
              "the server stopped"};
}

class RemoteStore final : public store::Store {
 public:
  RemoteStore(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options)
      : channel_(std::move(channel)),
        options_(options),
        kv_(pb::KV::NewStub(channel_)),
        lease_(pb::Lease::NewStub(channel_)),
        maintenance_(pb::Maintenance::NewStub(channel_)) {}

  store::Result<store::RangeResponse> range(const store::RangeRequest& request) override {
    pb::RangeRequest wire;
    to_wire(request, wire);
    pb::RangeResponse response;
    auto context = deadline();
    if (auto s = kv_->Range(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    return from_wire(response);
  }

  store::Result<store::PutResponse> put(const store::PutRequest& request) override {
    pb::PutRequest wire;
    to_wire(request, wire);
    pb::PutResponse response;
    auto context = deadline();
    if (auto s = kv_->Put(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    return from_wire(response);
  }

  store::Result<store::DeleteRangeResponse> delete_range(
      const store::DeleteRangeRequest& request) override {
    pb::DeleteRangeRequest wire;
    to_wire(request, wire);
    pb::DeleteRangeResponse response;
    auto context = deadline();
    if (auto s = kv_->DeleteRange(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    return from_wire(response);
  }

  store::Result<store::TxnResponse> txn(const store::TxnRequest& request) override {
    pb::TxnRequest wire;
    to_wire(request, wire);
    pb::TxnResponse response;
    auto context = deadline();
    if (auto s = kv_->Txn(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    store::TxnResponse out;
    if (!from_wire(response, out)) {
      return store::Status(store::Code::Internal,
                           "the endpoint sent a txn response nested too deep");
    }
    return out;
  }

  store::Result<store::CompactionResponse> compact(
      const store::CompactionRequest& request) override {
    pb::CompactionRequest wire;
    wire.set_revision(request.revision);
    wire.set_physical(request.physical);
    pb::CompactionResponse response;
    auto context = deadline();
    if (auto s = kv_->Compact(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    store::CompactionResponse out;
    out.header.revision = response.header().revision();
    learn_compacted(request.revision);
    return out;
  }

  std::shared_ptr<store::Watcher> watch(const store::WatchRequest& request) override {
    return open_remote_watch(channel_, request, options_.watcher_buffer);
  }

  store::Result<store::LeaseGrantResponse> lease_grant(
      const store::LeaseGrantRequest& request) override {
    pb::LeaseGrantRequest wire;
    wire.set_ttl(request.ttl);
    wire.set_id(request.id);
    pb::LeaseGrantResponse response;
    auto context = deadline();
    if (auto s = lease_->LeaseGrant(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    store::LeaseGrantResponse out;
    out.header.revision = response.header().revision();
    out.id = response.id();
    out.ttl = response.ttl();
    return out;
  }

  store::Result<store::LeaseRevokeResponse> lease_revoke(store::LeaseId id) override {
    pb::LeaseRevokeRequest wire;
    wire.set_id(id);
    pb::LeaseRevokeResponse response;
    auto context = deadline();
    if (auto s = lease_->LeaseRevoke(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    store::LeaseRevokeResponse out;
    out.header.revision = response.header().revision();
    return out;
  }

  // One renewal on a KeepAlive stream of its own. etcd answers an unknown lease with TTL 0.
  store::Result<store::LeaseKeepAliveResponse> lease_keep_alive(store::LeaseId id) override {
    auto context = deadline();
    auto stream = lease_->LeaseKeepAlive(context.get());
    pb::LeaseKeepAliveRequest request;
    request.set_id(id);
    pb::LeaseKeepAliveResponse response;
    bool answered = stream->Write(request) && stream->Read(&response);
    stream->WritesDone();
    grpc::Status s = stream->Finish();
    if (!answered) {
      return from_grpc(s.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                             "the keep-alive stream closed without an answer")
                              : s);
    }
    if (response.ttl() <= 0) {
      return store::Status(store::Code::LeaseNotFound);
    }
    store::LeaseKeepAliveResponse out;
    out.header.revision = response.header().revision();
    out.id = response.id();
    out.ttl = response.ttl();
    return out;
  }

  store::Result<store::LeaseTimeToLiveResponse> lease_time_to_live(store::LeaseId id,
                                                                   bool keys) override {
    pb::LeaseTimeToLiveRequest wire;
    wire.set_id(id);
    wire.set_keys(keys);
    pb::LeaseTimeToLiveResponse response;
    auto context = deadline();
    if (auto s = lease_->LeaseTimeToLive(context.get(), wire, &response); !s.ok()) {
      return from_grpc(s);
    }
    store::LeaseTimeToLiveResponse out;
    out.header.revision = response.header().revision();
    out.id = response.id();
    out.ttl = response.ttl();
    out.granted_ttl = response.grantedttl();
    out.keys.assign(response.keys().begin(), response.keys().end());
    return out;
  }

  store::Result<store::LeaseLeasesResponse> lease_leases() override {
    pb::LeaseLeasesResponse response;
    auto context = deadline();
    if (auto s = lease_->LeaseLeases(context.get(), pb::LeaseLeasesRequest(), &response); !s.ok()) {
      return from_grpc(s);
    }
    store::LeaseLeasesResponse out;
    out.header.revision = response.header().revision();
    for (const auto& lease : response.leases()) {
      out.leases.push_back({lease.id()});
    }
    return out;
  }

  void expire_leases_for_test() override {}

  // Sizes and revision from Status; the compacted revision from a watch (below); the key count
  // from a count-only range over every key.
  store::Result<store::StatusResponse> status() override {
    pb::StatusResponse response;
    {
      auto context = deadline();
      if (auto s = maintenance_->Status(context.get(), pb::StatusRequest(), &response); !s.ok()) {
        return from_grpc(s);
      }
    }
    store::StatusResponse out;
    out.header.revision = response.header().revision();
    out.db_size = response.dbsize();
    out.db_size_in_use = response.dbsizeinuse();
    auto compacted = find_compacted_revision();
    if (!compacted.is_ok()) {
      return compacted.status();
    }
    out.compact_revision = compacted.value();
    store::RangeRequest all;
    all.key = std::string(1, '\0');
    all.range_end = std::string(1, '\0');
    all.count_only = true;
    all.revision = out.header.revision;
    auto counted = range(all);
    if (!counted.is_ok()) {
      return counted.status();
    }
    out.key_count = counted->count;
    return out;
  }

  // The snapshot stream into `file`, written durably; its SHA-256 trailer is checked and left
  // out, so the file is the database as the server sent it.
  store::Status snapshot(const std::filesystem::path& file) override {
    grpc::ClientContext context;  // no deadline: a large database takes what it takes
    auto reader = maintenance_->Snapshot(&context, pb::SnapshotRequest());
    std::string failure;
    auto written = common::write_file_durably(file, 0600, [&](int fd) -> std::string {
      std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> sha(EVP_MD_CTX_new(),
                                                                  &EVP_MD_CTX_free);
      if (!sha || EVP_DigestInit_ex(sha.get(), EVP_sha256(), nullptr) != 1) {
        return "cannot compute the snapshot's checksum";
      }
      std::string held;  // the last bytes seen, which may be the checksum
      pb::SnapshotResponse chunk;
      while (reader->Read(&chunk)) {
        held += chunk.blob();
        if (held.size() > kChecksumBytes) {
          size_t ready = held.size() - kChecksumBytes;
          EVP_DigestUpdate(sha.get(), held.data(), ready);
          for (size_t done = 0; done < ready;) {
            ssize_t n = ::write(fd, held.data() + done, ready - done);
            if (n <= 0) {
              return std::string("write failed");
            }
            done += static_cast<size_t>(n);
          }
          held.erase(0, ready);
        }
      }
      grpc::Status s = reader->Finish();
      if (!s.ok()) {
        failure = s.error_message();
        return "the snapshot stream failed: " + failure;
      }
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned int length = 0;
      EVP_DigestFinal_ex(sha.get(), digest, &length);
      if (held.size() != kChecksumBytes ||
          held != std::string(reinterpret_cast<char*>(digest), length)) {
        return "the snapshot's SHA-256 does not match its data";
      }
      return {};
    });
    if (!written.ok()) {
      return {store::Code::Io, written.error.empty() ? written.not_durable : written.error};
    }
    return store::Status::ok();
  }

  store::Status defragment() override {
    pb::DefragmentResponse response;
    grpc::ClientContext context;  // as long as the server takes
    return from_grpc(maintenance_->Defragment(&context, pb::DefragmentRequest(), &response));
  }

  store::Status check_integrity() override { return not_over_the_wire("an integrity check"); }

  store::Result<store::ReplaceResponse> replace_all(std::vector<store::KeyValue>) override {
    return not_over_the_wire("replacing every key at one revision");
  }

  store::Revision current_revision() const override {
    store::RangeRequest probe;
    probe.key = std::string(1, '\0');
    probe.count_only = true;
    auto result = const_cast<RemoteStore*>(this)->range(probe);
    return result.is_ok() ? result->header.revision : 0;
  }

  // Asked at every watch start (the watch cache's replay check): a probe watch costs a stream,
  // so what one learned is kept for kCompactedFresh. The revision only grows; a compaction by
  // another client meanwhile shows when a watch from below it is cancelled as compacted.
  store::Revision compacted_revision() const override {
    {
      std::lock_guard lock(compacted_mu_);
      if (compacted_at_ && std::chrono::steady_clock::now() - *compacted_at_ < kCompactedFresh) {
        return compacted_;
      }
    }
    auto result = const_cast<RemoteStore*>(this)->find_compacted_revision();
    if (!result.is_ok()) {
      return 0;
    }
    return const_cast<RemoteStore*>(this)->learn_compacted(result.value());
  }

 private:
  static constexpr auto kCompactedFresh = std::chrono::seconds(1);

  // Keeps `revision` as the compacted revision if it is the highest known; returns the highest.
  store::Revision learn_compacted(store::Revision revision) {
    std::lock_guard lock(compacted_mu_);
    compacted_ = std::max(compacted_, revision);
    compacted_at_ = std::chrono::steady_clock::now();
    return compacted_;
  }

  std::unique_ptr<grpc::ClientContext> deadline() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + options_.request_timeout);
    return context;
  }

  // etcd's API has no call that names the compacted revision, but a watch from revision 1 on a
  // key nobody uses tells it: a compacted history cancels the watch with compact_revision set.
  store::Result<store::Revision> find_compacted_revision() {
    store::WatchRequest probe;
    probe.key = std::string("\0kube-sandbox/compaction-probe", 30);
    probe.start_revision = 1;
    auto watcher = watch(probe);
    store::Revision compacted = 0;
    auto until = std::chrono::steady_clock::now() + options_.request_timeout;
    store::WatchResponse response;
    while (std::chrono::steady_clock::now() < until) {
      if (!watcher->next(response, std::chrono::milliseconds(100))) {
        if (watcher->finished()) {
          break;
        }
        continue;
      }
      if (response.compact_revision != 0) {
        compacted = response.compact_revision;
        break;
      }
      if (response.canceled) {
        if (!response.cancel_reason.empty()) {
          return store::Status(store::Code::Io, response.cancel_reason);
        }
        break;
      }
      if (response.created) {
        // Not compacted: etcd would have canceled right after the created response. One
        // progress request flushes whatever came after it.
        watcher->request_progress();
        continue;
      }
      if (response.is_progress_notify()) {
        break;
      }
    }
    watcher->cancel();
    return compacted;
  }

  std::shared_ptr<grpc::Channel> channel_;
  ClientOptions options_;
  std::unique_ptr<pb::KV::Stub> kv_;
  std::unique_ptr<pb::Lease::Stub> lease_;
  std::unique_ptr<pb::Maintenance::Stub> maintenance_;
  mutable std::mutex compacted_mu_;  // guards the two below
  store::Revision compacted_ = 0;
  std::optional<std::chrono::steady_clock::time_point> compacted_at_;  // when last learned
};

}  // namespace

namespace {

// The gRPC target for one or several endpoints: "host:port", or, for several members, an
// ipv4:/ipv6: address list that gRPC's pick_first walks when a member stops answering.
store::Result<std::string> target_of(const std::vector<ListenUrl>& urls) {
  if (urls.size() == 1) {
    const auto& url = urls.front();
    std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
    return host + ":" + std::to_string(url.port);
  }
  std::string v4 = "ipv4:";
  std::string v6 = "ipv6:";
  bool any_v4 = false;
  bool any_v6 = false;
  for (const auto& url : urls) {
    std::string host = url.host == "localhost" ? "127.0.0.1" : url.host;
    in6_addr v6_address{};
    in_addr v4_address{};
    if (::inet_pton(AF_INET, host.c_str(), &v4_address) == 1) {
      v4 += (any_v4 ? "," : "") + host + ":" + std::to_string(url.port);
      any_v4 = true;
    } else if (::inet_pton(AF_INET6, host.c_str(), &v6_address) == 1) {
      v6 += (any_v6 ? "," : "") + std::string("[") + host + "]:" + std::to_string(url.port);
      any_v6 = true;
    } else {
      return store::Status(store::Code::InvalidArgument,
                           "several endpoints must be IP addresses (or localhost), got " + host);
    }
  }
  if (any_v4 && any_v6) {
    return store::Status(store::Code::InvalidArgument,
                         "several endpoints must all be IPv4 or all IPv6 addresses");
  }
  return any_v4 ? v4 : v6;
}

// A call a member could not take (it is down: UNAVAILABLE) goes to another, up to 3 attempts.
constexpr const char* kServiceConfig = R"({
  "loadBalancingConfig": [{"pick_first": {}}],
  "methodConfig": [{
    "name": [{"service": "etcdserverpb.KV"}, {"service": "etcdserverpb.Lease"},
             {"service": "etcdserverpb.Maintenance"}, {"service": "etcdserverpb.Cluster"}],
    "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
                    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}
  }]
})";

}  // namespace

store::Result<std::unique_ptr<store::Store>> connect(const ClientOptions& options) {
  std::vector<ListenUrl> urls;
  size_t start = 0;
  while (start <= options.endpoint.size()) {
    size_t comma = options.endpoint.find(',', start);
    std::string one = options.endpoint.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    std::string error;
    auto url = ListenUrl::parse(one, error);
    if (!url) {
      return store::Status(store::Code::InvalidArgument, one + ": " + error);
    }
    if (!urls.empty() && url->tls != urls.front().tls) {
      return store::Status(store::Code::InvalidArgument,
                           "the endpoints must all be http:// or all https://");
    }
    urls.push_back(*url);
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  auto target = target_of(urls);
  if (!target.is_ok()) {
    return target.status();
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (urls.front().tls) {
    grpc::SslCredentialsOptions ssl;
    if (options.tls) {
      ssl.pem_root_certs = options.tls->ca_pem;
      ssl.pem_cert_chain = options.tls->cert_pem;
      ssl.pem_private_key = options.tls->key_pem;
    }
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<size_t>(options.max_response_bytes, std::numeric_limits<int>::max())));
  arguments.SetServiceConfigJSON(kServiceConfig);
  // A member that stops answering is noticed within 30 s even on an idle connection.
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  auto channel = grpc::CreateCustomChannel(target.value(), credentials, arguments);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + options.dial_timeout)) {
    return store::Status(store::Code::Io, "cannot reach the etcd endpoint " + options.endpoint +
                                              " within " +
                                              std::to_string(options.dial_timeout.count()) + " ms");
  }
  return std::unique_ptr<store::Store>(std::make_unique<RemoteStore>(std::move(channel), options));
}

}  // namespace etcdwire
