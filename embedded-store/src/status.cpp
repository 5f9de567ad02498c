#include "store/status.h"

namespace store {

const char* default_message(Code code) {
  switch (code) {
    case Code::Ok:
      return "";
    case Code::Compacted:
      return "etcdserver: mvcc: required revision has been compacted";
    case Code::FutureRevision:
      return "etcdserver: mvcc: required revision is a future revision";
    case Code::DuplicateKey:
      return "etcdserver: duplicate key given in txn request";
    case Code::TooManyOps:
      return "etcdserver: too many operations in txn request";
    case Code::LeaseNotFound:
      return "etcdserver: requested lease not found";
    case Code::LeaseExists:
      return "etcdserver: lease already exists";
    case Code::LeaseTTLTooLarge:
      return "etcdserver: too large lease TTL";
    case Code::RequestTooLarge:
      return "etcdserver: request is too large";
    case Code::EmptyKey:
      return "etcdserver: key is not provided";
    case Code::KeyNotFound:
      return "etcdserver: key not found";
    case Code::InvalidArgument:
      return "invalid argument";
    case Code::Locked:
      return "the data directory is in use by another process";
    case Code::Closed:
      return "the store is closed";
    case Code::Io:
      return "storage I/O error";
    case Code::Internal:
      return "internal error in the store";
  }
  return "unknown error";
}

}  // namespace store
