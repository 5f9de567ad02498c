// etcd's Lease, Maintenance and Cluster services over the wire, and the HTTP side of the client
// port (/health, /version) that health checkers use.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <charconv>

#include "endpoint.h"

namespace pb = etcdserverpb;
using testing_support::Endpoint;

namespace {

// GET `path` on the endpoint's port over plain HTTP/1.1; the whole response.
std::string http_get(Endpoint& e, const std::string& path) {
  const std::string url = e.server().url();
  uint16_t port = 0;
  auto colon = url.rfind(':');
  std::from_chars(url.data() + colon + 1, url.data() + url.size(), port);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string response;
  char buffer[1024];
  ssize_t n = 0;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return response;
}

}  // namespace

TEST_CASE("etcd Lease: grant, keep alive on the stream, time to live, list and revoke") {
  Endpoint e;
  grpc::ClientContext grant_context;
  pb::LeaseGrantRequest grant;
  grant.set_ttl(60);
  pb::LeaseGrantResponse granted;
  REQUIRE(e.lease->LeaseGrant(&grant_context, grant, &granted).ok());
  CHECK(granted.ttl() == 60);
  const int64_t id = granted.id();
  REQUIRE(id != 0);
  e.put("leased", "v", id);

  grpc::ClientContext stream_context;
  auto stream = e.lease->LeaseKeepAlive(&stream_context);
  for (int64_t asked : {id, int64_t{424242}}) {
    pb::LeaseKeepAliveRequest renew;
    renew.set_id(asked);
    REQUIRE(stream->Write(renew));
    pb::LeaseKeepAliveResponse renewed;
    REQUIRE(stream->Read(&renewed));
    CHECK(renewed.id() == asked);
    CHECK(renewed.ttl() == (asked == id ? 60 : 0));  // an unknown lease: TTL 0, as etcd
  }
  stream->WritesDone();
  CHECK(stream->Finish().ok());

  grpc::ClientContext ttl_context;
  pb::LeaseTimeToLiveRequest ttl;
  ttl.set_id(id);
  ttl.set_keys(true);
  pb::LeaseTimeToLiveResponse left;
  REQUIRE(e.lease->LeaseTimeToLive(&ttl_context, ttl, &left).ok());
  CHECK(left.grantedttl() == 60);
  CHECK(left.ttl() > 50);
  REQUIRE(left.keys_size() == 1);
  CHECK(left.keys(0) == "leased");

  grpc::ClientContext list_context;
  pb::LeaseLeasesResponse leases;
  REQUIRE(e.lease->LeaseLeases(&list_context, pb::LeaseLeasesRequest(), &leases).ok());
  REQUIRE(leases.leases_size() == 1);
  CHECK(leases.leases(0).id() == id);

  grpc::ClientContext revoke_context;
  pb::LeaseRevokeRequest revoke;
  revoke.set_id(id);
  pb::LeaseRevokeResponse revoked;
  REQUIRE(e.lease->LeaseRevoke(&revoke_context, revoke, &revoked).ok());
  store::RangeRequest gone;
  gone.key = "leased";
  CHECK(e.store().range(gone)->kvs.empty());

  grpc::ClientContext again_context;
  auto status = e.lease->LeaseRevoke(&again_context, revoke, &revoked);
  CHECK(status.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(status.error_message() == "etcdserver: requested lease not found");
}

TEST_CASE("etcd Maintenance: status, hashes, defragment and the member list") {
  Endpoint e;
  e.put("a", "1");
  grpc::ClientContext status_context;
  pb::StatusResponse status;
  REQUIRE(e.maintenance->Status(&status_context, pb::StatusRequest(), &status).ok());
  CHECK(status.version() == "3.5.17");
  CHECK(status.dbsize() > 0);
  CHECK(status.leader() == e.server().member_id());
  CHECK(status.raftindex() == 2);

  auto hash_kv = [&](int64_t revision) {
    grpc::ClientContext context;
    pb::HashKVRequest request;
    request.set_revision(revision);
    pb::HashKVResponse response;
    REQUIRE(e.maintenance->HashKV(&context, request, &response).ok());
    return response.hash();
  };
  uint32_t before = hash_kv(0);
  e.put("a", "2");
  CHECK(hash_kv(0) != before);
  CHECK(hash_kv(2) == before);  // the hash of the keys as they were at revision 2

  grpc::ClientContext defrag_context;
  pb::DefragmentResponse defragmented;
  CHECK(e.maintenance->Defragment(&defrag_context, pb::DefragmentRequest(), &defragmented).ok());

  grpc::ClientContext members_context;
  pb::MemberListResponse members;
  REQUIRE(e.cluster->MemberList(&members_context, pb::MemberListRequest(), &members).ok());
  REQUIRE(members.members_size() == 1);
  CHECK(members.members(0).name() == "unit");
  CHECK(members.members(0).id() == e.server().member_id());
  REQUIRE(members.members(0).clienturls_size() == 1);
  CHECK(members.members(0).clienturls(0) == e.server().url());
}

TEST_CASE("etcd Maintenance: a NOSPACE alarm refuses writes until it is disarmed") {
  Endpoint e;
  auto alarm = [&](pb::AlarmRequest::AlarmAction action) {
    grpc::ClientContext context;
    pb::AlarmRequest request;
    request.set_action(action);
    request.set_memberid(e.server().member_id());
    request.set_alarm(pb::NOSPACE);
    pb::AlarmResponse response;
    REQUIRE(e.maintenance->Alarm(&context, request, &response).ok());
    return response;
  };
  CHECK(alarm(pb::AlarmRequest::ACTIVATE).alarms_size() == 1);
  grpc::ClientContext context;
  pb::PutRequest put;
  put.set_key("k");
  pb::PutResponse response;
  auto status = e.kv->Put(&context, put, &response);
  CHECK(status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(status.error_message() == "etcdserver: mvcc: database space exceeded");
  CHECK(http_get(e, "/health").rfind("HTTP/1.1 503", 0) == 0);
  CHECK(alarm(pb::AlarmRequest::DEACTIVATE).alarms_size() == 1);
  CHECK(alarm(pb::AlarmRequest::GET).alarms_size() == 0);
  e.put("k", "v");
}

TEST_CASE("etcd Maintenance: a snapshot streams the database, then its SHA-256") {
  Endpoint e;
  e.put("a", "1");
  grpc::ClientContext context;
  auto reader = e.maintenance->Snapshot(&context, pb::SnapshotRequest());
  std::string bytes;
  pb::SnapshotResponse chunk;
  while (reader->Read(&chunk)) {
    bytes += chunk.blob();
  }
  REQUIRE(reader->Finish().ok());
  // etcdctl checks the size is a multiple of 512 plus the 32 checksum bytes.
  REQUIRE(bytes.size() % 512 == 32);
  std::string data = bytes.substr(0, bytes.size() - 32);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  CHECK(bytes.substr(bytes.size() - 32) == std::string(reinterpret_cast<char*>(digest), 32));
}

TEST_CASE("etcd client port: HTTP/1.1 /health and /version beside gRPC") {
  Endpoint e;
  auto health = http_get(e, "/health");
  CHECK(health.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(health.find(R"({"health":"true","reason":""})") != std::string::npos);
  auto version = http_get(e, "/version");
  CHECK(version.find(R"("etcdserver":"3.5.17")") != std::string::npos);
  CHECK(http_get(e, "/nope").rfind("HTTP/1.1 404", 0) == 0);
  e.put("still", "grpc");  // the same port still speaks gRPC
}

TEST_CASE("etcd listen URLs parse as etcd's client URLs") {
  std::string error;
  auto plain = etcdwire::ListenUrl::parse("http://127.0.0.1:2379", error);
  REQUIRE(plain);
  CHECK_FALSE(plain->tls);
  CHECK(plain->host == "127.0.0.1");
  CHECK(plain->port == 2379);
  auto v6 = etcdwire::ListenUrl::parse("https://[::1]:0", error);
  REQUIRE(v6);
  CHECK(v6->tls);
  CHECK(v6->host == "::1");
  CHECK(v6->to_string() == "https://[::1]:0");
  CHECK_FALSE(etcdwire::ListenUrl::parse("127.0.0.1:2379", error));
  CHECK(error == "URL must start with http:// or https://");
  CHECK_FALSE(etcdwire::ListenUrl::parse("http://127.0.0.1", error));
  CHECK_FALSE(etcdwire::ListenUrl::parse("http://127.0.0.1:99999", error));
  CHECK(error == "port must be a number from 0 to 65535");
  CHECK_FALSE(etcdwire::ListenUrl::parse("http://127.0.0.1:2379/path", error));
}
