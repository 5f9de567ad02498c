#include "wire_status.h"

#include <string>

namespace etcdwire {

namespace {

constexpr const char* kStopped = "etcdserver: server stopped";

grpc::StatusCode code_of(store::Code code) {
  switch (code) {
    case store::Code::Ok:
      return grpc::StatusCode::OK;
    case store::Code::Compacted:
    case store::Code::FutureRevision:
    case store::Code::LeaseTTLTooLarge:
      return grpc::StatusCode::OUT_OF_RANGE;
    case store::Code::DuplicateKey:
    case store::Code::TooManyOps:
    case store::Code::RequestTooLarge:
    case store::Code::EmptyKey:
    case store::Code::KeyNotFound:
    case store::Code::InvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case store::Code::LeaseNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case store::Code::LeaseExists:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case store::Code::Closed:
      return grpc::StatusCode::UNAVAILABLE;
    case store::Code::Locked:
    case store::Code::Io:
    case store::Code::Internal:
      break;
  }
  return grpc::StatusCode::UNKNOWN;  // etcd's answer to an error it has no code for
}

}  // namespace

grpc::Status to_grpc(const store::Status& status) {
  if (status.is_ok()) {
    return grpc::Status::OK;
  }
  if (status.code() == store::Code::Closed) {
    return {grpc::StatusCode::UNAVAILABLE, kStopped};
  }
  return {code_of(status.code()), status.message()};
}

store::Status from_grpc(const grpc::Status& status) {
  if (status.ok()) {
    return store::Status::ok();
  }
  const std::string& message = status.error_message();
  // etcd's own errors travel with their exact texts: map them back to the codes they came from.
  static constexpr store::Code kByMessage[] = {
      store::Code::Compacted,        store::Code::FutureRevision,  store::Code::DuplicateKey,
      store::Code::TooManyOps,       store::Code::LeaseNotFound,   store::Code::LeaseExists,
      store::Code::LeaseTTLTooLarge, store::Code::RequestTooLarge, store::Code::EmptyKey,
      store::Code::KeyNotFound,
  };
  for (store::Code code : kByMessage) {
    if (message == store::default_message(code)) {
      return store::Status(code);
    }
  }
  switch (status.error_code()) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::FAILED_PRECONDITION:
      return {store::Code::InvalidArgument, message};
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return {store::Code::Io, message};
    default:
      return {store::Code::Internal, message};
  }
}

grpc::Status no_space_error() {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED, "etcdserver: mvcc: database space exceeded"};
}

grpc::Status key_not_found_error() {
  return {grpc::StatusCode::INVALID_ARGUMENT, store::default_message(store::Code::KeyNotFound)};
}

}  // namespace etcdwire
