// Test support: an etcd endpoint on an ephemeral store at 127.0.0.1:<free port>, and gRPC stubs
// that reach it, as an etcd client would.
#pragma once

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "etcdserverpb/rpc.grpc.pb.h"
#include "etcdwire/server.h"
#include "store/store.h"

namespace testing_support {

class Endpoint {
 public:
  explicit Endpoint(size_t max_request_bytes = 1572864) {
    store::Options options;
    options.durability = store::Durability::Ephemeral;
    options.max_request_bytes = max_request_bytes;
    auto opened = store::Store::open(options);
    REQUIRE(opened.is_ok());
    db_ = std::move(opened).value();
    etcdwire::ServerOptions server_options;
    server_options.listen = {false, "127.0.0.1", 0};
    server_options.member_name = "unit";
    server_options.max_request_bytes = max_request_bytes;
    std::string error;
    server_ = etcdwire::Server::start(*db_, server_options, error);
    INFO(error);
    REQUIRE(server_);
    std::string target = server_->url().substr(std::string("http://").size());
    channel_ = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
    kv = etcdserverpb::KV::NewStub(channel_);
    watch = etcdserverpb::Watch::NewStub(channel_);
    lease = etcdserverpb::Lease::NewStub(channel_);
    maintenance = etcdserverpb::Maintenance::NewStub(channel_);
    cluster = etcdserverpb::Cluster::NewStub(channel_);
  }
  ~Endpoint() { server_->shutdown(std::chrono::milliseconds(0)); }

  store::Store& store() { return *db_; }
  etcdwire::Server& server() { return *server_; }

  // Put through the wire; returns the revision.
  int64_t put(const std::string& key, const std::string& value, int64_t lease_id = 0) {
    grpc::ClientContext context;
    etcdserverpb::PutRequest request;
    request.set_key(key);
    request.set_value(value);
    request.set_lease(lease_id);
    etcdserverpb::PutResponse response;
    auto status = kv->Put(&context, request, &response);
    INFO(status.error_message());
    REQUIRE(status.ok());
    return response.header().revision();
  }

  std::unique_ptr<etcdserverpb::KV::Stub> kv;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
  std::unique_ptr<etcdserverpb::Cluster::Stub> cluster;

 private:
  std::unique_ptr<store::Store> db_;
  std::unique_ptr<etcdwire::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

}  // namespace testing_support
