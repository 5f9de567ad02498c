// Audit events as the log backend writes them, the request's stages, and the rotated log file
// (audit/event, audit/auditor, audit/log_file, audit/log_writer).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../temp_dir.h"
#include "audit/auditor.h"
#include "audit/event.h"
#include "audit/log_file.h"
#include "audit/log_writer.h"

namespace audit = apiserver::audit;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::chrono::system_clock::time_point at(std::int64_t seconds, std::int64_t micros) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds) +
                                               std::chrono::microseconds(micros));
}

std::vector<json> lines_of(const fs::path& file) {
  std::vector<json> out;
  std::istringstream in(testing_support::read_file(file));
  for (std::string line; std::getline(in, line);) {
    out.push_back(json::parse(line));
  }
  return out;
}

// An Auditor writing to a file in `dir`, for `policy_yaml`'s rules.
std::shared_ptr<audit::Auditor> auditor_in(const fs::path& dir, const std::string& rules) {
  auto policy =
      audit::parse_policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n" + rules, "p");
  REQUIRE(policy);
  auto file =
      std::make_unique<audit::LogFile>((dir / "audit.log").string(), audit::RotationOptions{});
  REQUIRE_FALSE(file->open());
  return std::make_shared<audit::Auditor>(*policy,
                                          std::make_unique<audit::LogWriter>(std::move(file)));
}

apiserver::http::Request request(const std::string& method, const std::string& target,
                                 const std::string& body = "") {
  apiserver::http::Request r;
  r.method = method;
  r.target = target;
  r.path = target.substr(0, target.find('?'));
  r.body = body;
  r.remote_address = "10.1.2.3:5555";
  r.headers["User-Agent"] = "kubectl/v1.32.0";
  if (!body.empty()) {
    r.headers["Content-Type"] = "application/json";
  }
  return r;
}

audit::Attributes configmaps(const std::string& verb, const std::string& name = "") {
  audit::Attributes a;
  a.user = {"alice", {"system:authenticated"}};
  a.verb = verb;
  a.resource_request = true;
  a.version = "v1";
  a.resource = "configmaps";
  a.namespace_ = "default";
  a.name = name;
  return a;
}

apiserver::http::Response json_response(int code, const std::string& body) {
  apiserver::http::Response r;
  r.status = code;
  r.set_header("Content-Type", "application/json");
  r.body = body;
  return r;
}

}  // namespace

TEST_CASE("an event renders upstream's fields in order, omitting the empty ones",
          "[audit][event]") {
  audit::Event e;
  e.level = audit::Level::Metadata;
  e.audit_id = "0b1c";
  e.stage = audit::Stage::ResponseComplete;
  e.request_uri = "/api/v1/namespaces/default/pods/p";
  e.verb = "get";
  e.user = {"alice", "", {"devs"}, {{"scopes", {"a"}}}};
  e.source_ips = {"10.0.0.1"};
  e.user_agent = "kubectl";
  e.object_ref = audit::ObjectReference{"pods", "default", "p", "", "", "v1", "", ""};
  e.response_status = audit::ResponseStatus{"", "", "", std::nullopt, 200};
  e.request_received = at(1700000000, 5);
  e.stage_time = at(1700000000, 123456);
  e.annotations = {{"b", "2"}, {"a", "1"}};
  CHECK(audit::render(e) ==
        R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0b1c",)"
        R"("stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/pods/p",)"
        R"("verb":"get","user":{"username":"alice","groups":["devs"],"extra":{"scopes":["a"]}},)"
        R"("sourceIPs":["10.0.0.1"],"userAgent":"kubectl","objectRef":{"resource":"pods",)"
        R"("namespace":"default","name":"p","apiVersion":"v1"},"responseStatus":{"metadata":{},)"
        R"("code":200},"requestReceivedTimestamp":"2023-11-14T22:13:20.000005Z",)"
        R"("stageTimestamp":"2023-11-14T22:13:20.123456Z","annotations":{"a":"1","b":"2"}})");
  SECTION("an unauthenticated user is an empty object") {
    e.user = {};
    e.object_ref.reset();
    e.annotations.clear();
    const json doc = json::parse(audit::render(e));
    CHECK(doc["user"] == json::object());
    CHECK_FALSE(doc.contains("objectRef"));
    CHECK_FALSE(doc.contains("annotations"));
    CHECK_FALSE(doc.contains("impersonatedUser"));
  }
}

TEST_CASE("a request's stages: RequestReceived, then ResponseComplete with its status",
          "[audit][event]") {
  testing_support::TempDir dir("ks-audit");
  auto auditor = auditor_in(dir.path(), "- level: RequestResponse\n  omitManagedFields: true\n");
  const std::string body = R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c1"}})";
  auto req = request("POST", "/api/v1/namespaces/default/configmaps?fieldManager=x", body);
  audit::RequestAudit a(auditor, req, at(1700000000, 0));
  {
    audit::Scope scope(a);
    CHECK(a.begin(configmaps("create"), {"alice", "u1", {"system:authenticated"}, {}}) ==
          audit::Level::RequestResponse);
    audit::annotate(audit::kDecisionAnnotation, "allow");
    audit::annotate(audit::kReasonAnnotation, "");
  }
  auto response = json_response(
      201, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c1","uid":"9",)"
           R"("resourceVersion":"7","managedFields":[{"manager":"x"}]}})");
  a.finish(response, configmaps("create"), false);
  auditor->flush();
  auto lines = lines_of(dir.path() / "audit.log");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["stage"] == "RequestReceived");
  CHECK(lines[0]["stageTimestamp"] == lines[0]["requestReceivedTimestamp"]);
  CHECK_FALSE(lines[0].contains("annotations"));
  CHECK_FALSE(lines[0].contains("responseStatus"));
  CHECK(lines[1]["stage"] == "ResponseComplete");
  CHECK(lines[1]["auditID"] == lines[0]["auditID"]);
  CHECK(lines[1]["verb"] == "create");
  CHECK(lines[1]["sourceIPs"] == json::array({"10.1.2.3"}));
  CHECK(lines[1]["user"] == json::parse(R"({"username":"alice","uid":"u1",
                                            "groups":["system:authenticated"]})"));
  // The created object's name completes the reference.
  CHECK(lines[1]["objectRef"] == json::parse(R"({"resource":"configmaps","namespace":"default",
                                                 "name":"c1","apiVersion":"v1"})"));
  CHECK(lines[1]["responseStatus"] == json::parse(R"({"metadata":{},"code":201})"));
  CHECK(lines[1]["requestObject"] == json::parse(body));
  CHECK(lines[1]["responseObject"]["metadata"] ==
        json::parse(R"({"name":"c1","uid":"9","resourceVersion":"7"})"));
  CHECK(lines[1]["annotations"] == json::parse(R"({"authorization.k8s.io/decision":"allow",
                                                   "authorization.k8s.io/reason":""})"));
  CHECK(response.headers.back() ==
        std::pair<std::string, std::string>("Audit-Id", lines[0]["auditID"]));
}

TEST_CASE("levels bound what an event carries; a failure's Status is copied", "[audit][event]") {
  testing_support::TempDir dir("ks-audit");
  auto auditor = auditor_in(dir.path(), R"(
- level: Metadata
  verbs: [get]
- level: Request
  verbs: [update]
- level: None
)");
  const std::string forbidden =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no",)"
      R"("reason":"Forbidden","details":{"name":"c1","kind":"configmaps"},"code":403})";
  auto get = request("GET", "/api/v1/namespaces/default/configmaps/c1");
  audit::RequestAudit g(auditor, get, at(1700000000, 0));
  g.begin(configmaps("get", "c1"), {"alice", "", {}, {}});
  auto refused = json_response(403, forbidden);
  g.finish(refused, configmaps("get", "c1"), false);
  const std::string body = R"({"metadata":{"name":"c1","resourceVersion":"5"},"data":{"a":"b"}})";
  auto put = request("PUT", "/api/v1/namespaces/default/configmaps/c1", body);
  audit::RequestAudit u(auditor, put, at(1700000000, 0));
  u.begin(configmaps("update", "c1"), {"alice", "", {}, {}});
  auto updated = json_response(200, body);
  u.finish(updated, configmaps("update", "c1"), false);
  auto del = request("DELETE", "/api/v1/namespaces/default/configmaps/c1");
  audit::RequestAudit d(auditor, del, at(1700000000, 0));
  CHECK(d.begin(configmaps("delete", "c1"), {"alice", "", {}, {}}) == audit::Level::None);
  auto deleted = json_response(200, body);
  d.finish(deleted, configmaps("delete", "c1"), false);
  auditor->flush();
  auto lines = lines_of(dir.path() / "audit.log");
  REQUIRE(lines.size() == 4);  // nothing of the delete
  CHECK(lines[1]["level"] == "Metadata");
  CHECK(lines[1]["responseStatus"] == json::parse(R"({"metadata":{},"status":"Failure",
      "message":"no","reason":"Forbidden","details":{"name":"c1","kind":"configmaps"},
      "code":403})"));
  CHECK_FALSE(lines[1].contains("responseObject"));
  CHECK(lines[3]["level"] == "Request");
  CHECK(lines[3]["requestObject"] == json::parse(body));
  CHECK_FALSE(lines[3].contains("responseObject"));
  CHECK(lines[3]["objectRef"]["resourceVersion"] == "5");
}

TEST_CASE("long-running requests add ResponseStarted; omitted stages are not written",
          "[audit][event]") {
  testing_support::TempDir dir("ks-audit");
  auto auditor = auditor_in(dir.path(), "- level: Metadata\n  omitStages: [RequestReceived]\n");
  auto watch = request("GET", "/api/v1/namespaces/default/configmaps?watch=true");
  audit::RequestAudit w(auditor, watch, at(1700000000, 0));
  w.begin(configmaps("watch"), {"alice", "", {}, {}});
  apiserver::http::Response r;  // not a stream: complete at once
  w.finish(r, configmaps("watch"), true);
  auditor->flush();
  auto lines = lines_of(dir.path() / "audit.log");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["stage"] == "ResponseStarted");
  CHECK(lines[0]["responseStatus"]["code"] == 200);
  CHECK(lines[1]["stage"] == "ResponseComplete");
}

TEST_CASE("a request authentication refused gets one ResponseStarted event", "[audit][event]") {
  testing_support::TempDir dir("ks-audit");
  auto auditor = auditor_in(dir.path(), "- level: Metadata\n");
  auto req = request("GET", "/api/v1/namespaces/default/configmaps");
  req.headers["Authorization"] = "Bearer nope";
  req.headers["Audit-ID"] = "client-chosen";
  audit::RequestAudit a(auditor, req, at(1700000000, 0));
  auto refused = json_response(401, R"({"kind":"Status","code":401})");
  a.finish(refused, configmaps("list"), false);
  auditor->flush();
  auto lines = lines_of(dir.path() / "audit.log");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["auditID"] == "client-chosen");
  CHECK(lines[0]["stage"] == "ResponseStarted");
  CHECK(lines[0]["user"] == json::object());
  CHECK(lines[0]["responseStatus"] ==
        json::parse(R"({"metadata":{},"message":"Authentication failed, attempted: bearer",
                        "code":401})"));
}

TEST_CASE("a handler that threw writes Panic and nothing after it", "[audit][event]") {
  testing_support::TempDir dir("ks-audit");
  auto auditor = auditor_in(dir.path(), "- level: Metadata\n  omitStages: [RequestReceived]\n");
  auto req = request("GET", "/api/v1/namespaces/default/configmaps");
  audit::RequestAudit a(auditor, req, at(1700000000, 0));
  a.begin(configmaps("list"), {"alice", "", {}, {}});
  a.panicked("boom");
  auto answer = json_response(500, "{}");
  a.finish(answer, configmaps("list"), false);
  auditor->flush();
  auto lines = lines_of(dir.path() / "audit.log");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0]["stage"] == "Panic");
  CHECK(lines[0]["responseStatus"] ==
        json::parse(R"({"metadata":{},"status":"Failure","message":"APIServer panic'd: boom",
                        "reason":"InternalError","code":500})"));
}

TEST_CASE("the log rotates past its size and keeps maxbackup backups, lumberjack's names",
          "[audit][log]") {
  testing_support::TempDir dir("ks-audit");
  auto clock = [] { return at(1700000000, 123000); };
  CHECK(audit::LogFile::backup_name("/x/audit.log", clock()) ==
        "/x/audit-2023-11-14T22-13-20.123.log");
  const fs::path path = dir.path() / "logs" / "audit.log";
  // Three old backups, one of them older than the others.
  fs::create_directories(path.parent_path());
  for (const char* old : {"audit-2023-11-10T00-00-00.000.log", "audit-2023-11-11T00-00-00.000.log",
                          "audit-2023-01-01T00-00-00.000.log", "audit-other.log"}) {
    std::ofstream(path.parent_path() / old) << "old\n";
  }
  audit::LogFile file(path.string(), {1, 2, 0}, +clock);
  REQUIRE_FALSE(file.open());
  CHECK(testing_support::mode_of(path) == 0600);
  const std::string half(600 * 1024, 'x');
  REQUIRE_FALSE(file.write(half + "\n"));
  CHECK_FALSE(fs::exists(audit::LogFile::backup_name(path, clock())));
  REQUIRE_FALSE(file.write(half + "\n"));  // would pass 1 MB: rotates first
  CHECK(fs::file_size(audit::LogFile::backup_name(path, clock())) == half.size() + 1);
  CHECK(fs::file_size(path) == half.size() + 1);
  // The newest two backups stay (the new one and 11-11); files not named as backups stay too.
  CHECK(fs::exists(path.parent_path() / "audit-2023-11-11T00-00-00.000.log"));
  CHECK_FALSE(fs::exists(path.parent_path() / "audit-2023-11-10T00-00-00.000.log"));
  CHECK_FALSE(fs::exists(path.parent_path() / "audit-2023-01-01T00-00-00.000.log"));
  CHECK(fs::exists(path.parent_path() / "audit-other.log"));
}

TEST_CASE("maxage removes backups older than so many days", "[audit][log]") {
  testing_support::TempDir dir("ks-audit");
  auto clock = [] { return at(1700000000, 0); };  // 2023-11-14T22:13:20Z
  const fs::path path = dir.path() / "audit.log";
  std::ofstream(dir.path() / "audit-2023-11-12T00-00-00.000.log") << "2 days old\n";
  std::ofstream(dir.path() / "audit-2023-11-01T00-00-00.000.log") << "13 days old\n";
  audit::LogFile file(path.string(), {1, 0, 7}, +clock);
  REQUIRE_FALSE(file.open());
  const std::string big(1024 * 1024, 'x');
  REQUIRE_FALSE(file.write(big));
  REQUIRE_FALSE(file.write("more\n"));
  CHECK(fs::exists(dir.path() / "audit-2023-11-12T00-00-00.000.log"));
  CHECK_FALSE(fs::exists(dir.path() / "audit-2023-11-01T00-00-00.000.log"));
}

TEST_CASE("the writer's queue is bounded: what does not fit is dropped and counted",
          "[audit][log]") {
  // The log is a FIFO nobody reads yet: the writer thread blocks on its first line, larger than
  // a pipe holds, and the queue fills behind it.
  testing_support::TempDir dir("ks-audit");
  const fs::path path = dir.path() / "audit.fifo";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  auto file = std::make_unique<audit::LogFile>(path.string(), audit::RotationOptions{});
  REQUIRE_FALSE(file->open());
  std::string received;
  std::thread drain;
  size_t accepted = 0;
  {
    audit::LogWriter writer(std::move(file), 4);
    accepted += writer.add(std::string(256 * 1024, 'x')) ? 1 : 0;
    for (int i = 0; i < 20; ++i) {
      accepted += writer.add("line " + std::to_string(i)) ? 1 : 0;
    }
    // The writer takes one batch (at most 4 lines, the big one first) and blocks on it; at most
    // 4 more wait behind it.
    CHECK(accepted <= 8);
    CHECK(writer.dropped() == 21 - accepted);
    ::fcntl(reader, F_SETFL, 0);  // blocking reads from here on
    drain = std::thread([&received, reader] {
      char buffer[65536];
      ssize_t n = 0;
      while ((n = ::read(reader, buffer, sizeof buffer)) > 0) {
        received.append(buffer, static_cast<size_t>(n));
      }
    });
    writer.flush();
  }  // the writer closes the FIFO: the reader sees its end
  drain.join();
  ::close(reader);
  CHECK(static_cast<size_t>(std::count(received.begin(), received.end(), '\n')) == accepted);
  CHECK(received.starts_with(std::string(256 * 1024, 'x') + "\nline 0\n"));
}
