// The store's errors as etcd's gRPC errors (code and message, as etcd's server sends them) and
// back, as etcd's client classifies them by message.
#pragma once

#include <grpcpp/support/status.h>

#include "store/status.h"

namespace etcdwire {

grpc::Status to_grpc(const store::Status& status);
store::Status from_grpc(const grpc::Status& status);

// etcd's errors that have no store code.
grpc::Status no_space_error();       // an active NOSPACE alarm refuses writes
grpc::Status key_not_found_error();  // a txn operation with nothing in it

}  // namespace etcdwire
