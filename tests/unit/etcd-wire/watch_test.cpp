// etcd's Watch stream over the wire: several watches on one stream, filters, prev_kv, cancel,
// compaction, progress and fragments, as etcd's clients see them.
#include <catch2/catch.hpp>
#include <chrono>

#include "endpoint.h"

namespace pb = etcdserverpb;
using testing_support::Endpoint;

namespace {

using Stream = grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>;

// A stream with a deadline: a test that waits for a response that never comes fails, not hangs.
struct WatchStream {
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;

  explicit WatchStream(Endpoint& e) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    stream = e.watch->Watch(&context);
  }
  void create(const std::string& key, const std::string& range_end, int64_t start = 0,
              bool prev_kv = false, bool fragment = false) {
    pb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(key);
    create->set_range_end(range_end);
    create->set_start_revision(start);
    create->set_prev_kv(prev_kv);
    create->set_fragment(fragment);
    REQUIRE(stream->Write(request));
  }
  pb::WatchResponse next() {
    pb::WatchResponse response;
    if (!stream->Read(&response)) {
      auto status = stream->Finish();
      FAIL("the stream ended: " << status.error_code() << " " << status.error_message());
    }
    return response;
  }
};

}  // namespace

TEST_CASE("etcd Watch: created, then the events of each revision, with prev_kv when asked") {
  Endpoint e;
  e.put("/registry/pods/a", "v1");
  WatchStream w(e);
  w.create("/registry/pods/", "/registry/pods0", 0, true);
  auto created = w.next();
  CHECK(created.created());
  CHECK(created.watch_id() == 0);  // IDs are per stream and start at 0, as etcd's
  CHECK(created.header().member_id() == e.server().member_id());

  int64_t revision = e.put("/registry/pods/a", "v2");
  e.put("/registry/other", "x");  // outside the watched range
  auto event = w.next();
  REQUIRE(event.events_size() == 1);
  CHECK(event.watch_id() == 0);
  CHECK(event.header().revision() == revision);
  CHECK(event.events(0).type() == mvccpb::Event::PUT);
  CHECK(event.events(0).kv().value() == "v2");
  REQUIRE(event.events(0).has_prev_kv());
  CHECK(event.events(0).prev_kv().value() == "v1");

  // A second watch on the same stream gets the next ID; a cancel is answered canceled.
  w.create("/registry/other", "");
  auto second = w.next();
  CHECK(second.created());
  CHECK(second.watch_id() == 1);
  pb::WatchRequest cancel;
  cancel.mutable_cancel_request()->set_watch_id(1);
  REQUIRE(w.stream->Write(cancel));
  auto canceled = w.next();
  CHECK(canceled.watch_id() == 1);
  CHECK(canceled.canceled());
  w.context.TryCancel();
}

TEST_CASE("etcd Watch: a start revision that was compacted is acknowledged, then canceled") {
  Endpoint e;
  e.put("k", "1");
  int64_t latest = e.put("k", "2");
  grpc::ClientContext context;
  pb::CompactionRequest compact;
  compact.set_revision(latest);
  pb::CompactionResponse compacted;
  REQUIRE(e.kv->Compact(&context, compact, &compacted).ok());

  WatchStream w(e);
  w.create("k", "", 1);
  auto created = w.next();
  CHECK(created.created());
  CHECK_FALSE(created.canceled());
  auto canceled = w.next();
  CHECK(canceled.canceled());
  CHECK(canceled.compact_revision() == latest);
  CHECK(canceled.watch_id() == created.watch_id());
  w.context.TryCancel();
}

TEST_CASE("etcd Watch: history replays from a start revision; progress requests are answered") {
  Endpoint e;
  e.put("a", "1");
  e.put("a", "2");
  WatchStream w(e);
  SECTION("replay") {
    w.create("a", "", 2);
    CHECK(w.next().created());
    auto first = w.next();
    REQUIRE(first.events_size() == 1);
    CHECK(first.events(0).kv().value() == "1");
    auto second = w.next();
    REQUIRE(second.events_size() == 1);
    CHECK(second.events(0).kv().value() == "2");
  }
  SECTION("progress on a stream without watches answers for the whole stream") {
    pb::WatchRequest progress;
    progress.mutable_progress_request();
    REQUIRE(w.stream->Write(progress));
    auto response = w.next();
    CHECK(response.watch_id() == -1);
    CHECK(response.events_size() == 0);
    CHECK(response.header().revision() == 3);
  }
  SECTION("progress on a watch answers with its ID once it is up to date") {
    w.create("a", "");
    auto created = w.next();
    pb::WatchRequest progress;
    progress.mutable_progress_request();
    REQUIRE(w.stream->Write(progress));
    auto response = w.next();
    CHECK(response.watch_id() == created.watch_id());
    CHECK(response.events_size() == 0);
    CHECK_FALSE(response.created());
    CHECK(response.header().revision() == 3);
  }
  w.context.TryCancel();
}

TEST_CASE("etcd Watch: a fragmenting watch splits a large revision's events") {
  Endpoint e(64 * 1024);
  // One txn writes 8 values of 7 KiB (56 KiB, under the 64 KiB request limit) at one revision.
  auto write_all = [&](char fill) {
    grpc::ClientContext context;
    pb::TxnRequest txn;
    for (int i = 0; i < 8; ++i) {
      auto* put = txn.add_success()->mutable_request_put();
      put->set_key("big/" + std::to_string(i));
      put->set_value(std::string(7 * 1024, fill));
    }
    pb::TxnResponse written;
    auto status = e.kv->Txn(&context, txn, &written);
    INFO(status.error_message());
    REQUIRE(status.ok());
    return written.header().revision();
  };
  write_all('a');
  WatchStream w(e);
  w.create("big/", "big0", 0, true, true);
  CHECK(w.next().created());
  // With the previous values the revision's events weigh 112 KiB: over the limit.
  int64_t revision = write_all('b');
  int events = 0;
  int fragments = 0;
  for (;;) {
    auto part = w.next();
    events += part.events_size();
    CHECK(part.header().revision() == revision);
    CHECK(part.ByteSizeLong() <= 64 * 1024 + 1024);
    if (!part.fragment()) {
      break;
    }
    ++fragments;
  }
  CHECK(events == 8);
  CHECK(fragments >= 1);
  w.context.TryCancel();
}
