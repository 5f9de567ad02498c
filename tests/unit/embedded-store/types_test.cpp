#include <catch2/catch.hpp>

#include "store/status.h"
#include "store/types.h"

TEST_CASE("prefix_range_end increments the last byte below 0xff", "[store][types]") {
  struct Case {
    std::string prefix;
    std::string end;
  };
  auto c = GENERATE(values<Case>({
      {"/registry/pods/", "/registry/pods0"},
      {"a", "b"},
      {std::string("a\xff", 2), "b"},
      {std::string("\xff\xff", 2), std::string(1, '\0')},
      {"", std::string(1, '\0')},
  }));
  CAPTURE(c.prefix);
  CHECK(store::prefix_range_end(c.prefix) == c.end);
}

TEST_CASE("Status carries etcd's error texts", "[store][status]") {
  CHECK(store::Status(store::Code::Compacted).message() ==
        "etcdserver: mvcc: required revision has been compacted");
  CHECK(store::Status(store::Code::FutureRevision).message() ==
        "etcdserver: mvcc: required revision is a future revision");
  CHECK(store::Status(store::Code::DuplicateKey).message() ==
        "etcdserver: duplicate key given in txn request");
  CHECK(store::Status::ok().is_ok());
  store::Result<int> r = store::Status(store::Code::LeaseNotFound);
  CHECK_FALSE(r.is_ok());
  CHECK(r.status().message() == "etcdserver: requested lease not found");
}
