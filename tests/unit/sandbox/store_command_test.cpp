#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "cli_run.h"
#include "data_dir.h"
#include "store/store.h"

namespace fs = std::filesystem;

namespace {

using cli_test::Run;
using cli_test::run;
using cli_test::TempDir;

// `kube-sandbox store ARGS... --data-dir DIR`
Run ks_store(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), "store");
  args.push_back("--data-dir");
  args.push_back(dir.path().string());
  return run(args);
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

sandbox::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) {
      return std::nullopt;
    }
    return it->second;
  };
}

}  // namespace

TEST_CASE("the data directory comes from the flag, then XDG_DATA_HOME, then HOME",
          "[store-cli][data-dir]") {
  struct Case {
    std::string flag;
    std::map<std::string, std::string> env;
    std::string want;
  };
  auto c = GENERATE(values<Case>({
      {"/srv/ks", {{"XDG_DATA_HOME", "/xdg"}, {"HOME", "/home/u"}}, "/srv/ks"},
      {"rel/dir", {{"HOME", "/home/u"}}, "rel/dir"},
      {"", {{"XDG_DATA_HOME", "/xdg"}, {"HOME", "/home/u"}}, "/xdg/kube-sandbox"},
      {"", {{"XDG_DATA_HOME", ""}, {"HOME", "/home/u"}}, "/home/u/.local/share/kube-sandbox"},
      {"", {{"XDG_DATA_HOME", "xdg"}, {"HOME", "/home/u"}}, "/home/u/.local/share/kube-sandbox"},
      {"", {{"HOME", "/home/u"}}, "/home/u/.local/share/kube-sandbox"},
  }));
  CAPTURE(c.flag, c.want);
  auto dir = sandbox::resolve_data_dir(c.flag, env_of(c.env));
  REQUIRE(dir);
  CHECK(dir->root() == fs::path(c.want));
  CHECK(dir->store_dir() == fs::path(c.want) / "store");
}

TEST_CASE("without the flag, XDG_DATA_HOME or HOME there is no data directory",
          "[store-cli][data-dir]") {
  auto dir = sandbox::resolve_data_dir("", env_of({{"HOME", ""}}));
  REQUIRE_FALSE(dir);
  CHECK(dir.error() == "no data directory: pass --data-dir, or set XDG_DATA_HOME or HOME");
}

TEST_CASE("ensure_exists creates the data directory for its owner only", "[store-cli][data-dir]") {
  TempDir tmp;
  sandbox::DataDir dir(tmp.path() / "a" / "b");
  CHECK(dir.ensure_exists().empty());
  CHECK(fs::is_directory(dir.root()));
  CHECK(fs::status(dir.root()).permissions() == fs::perms::owner_all);
  CHECK(dir.ensure_exists().empty());
}

TEST_CASE("store without a subcommand prints its commands and exits 2", "[store-cli]") {
  auto r = run({"store"});
  CHECK(r.code == 2);
  for (const char* name : {"get", "put", "del", "compact", "snapshot", "status", "defrag"}) {
    CAPTURE(name);
    CHECK(r.err.find(std::string("\n  ") + name + " ") != std::string::npos);
  }
  auto snapshot = run({"store", "snapshot"});
  CHECK(snapshot.code == 2);
  CHECK(first_line(snapshot.err) == "Usage: kube-sandbox store snapshot COMMAND FILE [flags]");

  auto help = run({"store", "get", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.rfind("Usage: kube-sandbox store get KEY [RANGE_END] [flags]\n", 0) == 0);
  CHECK(help.out.find("--data-dir DIR") != std::string::npos);
}

TEST_CASE("a wrong store command line exits 2 with the reason and touches nothing", "[store-cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string want;  // the first line of stderr
  };
  auto c = GENERATE(values<Case>({
      {{"get"}, "kube-sandbox store get: missing KEY"},
      {{"get", "a", "b", "c"}, "kube-sandbox store get: too many arguments: want KEY [RANGE_END]"},
      {{"get", "k", "--prefix", "--from-key"},
       "kube-sandbox store get: --prefix and --from-key cannot be used together"},
      {{"get", "a", "b", "--prefix"},
       "kube-sandbox store get: RANGE_END cannot be used with --prefix"},
      {{"get", "a", "b", "--from-key"},
       "kube-sandbox store get: RANGE_END cannot be used with --from-key"},
      {{"get", "k", "--limit", "ten"},
       "kube-sandbox store get: --limit wants a non-negative integer, got \"ten\""},
      {{"get", "k", "--rev", "-1"},
       "kube-sandbox store get: --rev wants a non-negative integer, got \"-1\""},
      {{"get", "k", "--rev", "3x"},
       "kube-sandbox store get: --rev wants a non-negative integer, got \"3x\""},
      {{"get", "k", "-o", "yaml"},
       "kube-sandbox store get: unknown output format \"yaml\" (want simple or json)"},
      {{"get", "k", "--bogus"}, "kube-sandbox store get: unknown flag: --bogus"},
      {{"put", "k"}, "kube-sandbox store put: want KEY and VALUE"},
      {{"put", "k", "v", "w"}, "kube-sandbox store put: too many arguments: want KEY VALUE"},
      {{"put", "k", "-1"}, "kube-sandbox store put: unknown flag: -1"},
      {{"del"}, "kube-sandbox store del: missing KEY"},
      {{"del", "k", "--keys-only"}, "kube-sandbox store del: unknown flag: --keys-only"},
      {{"compact"}, "kube-sandbox store compact: missing REVISION"},
      {{"compact", "1", "2"}, "kube-sandbox store compact: too many arguments"},
      {{"compact", "zero"},
       "kube-sandbox store compact: REVISION must be a positive integer, got \"zero\""},
      {{"compact", "0"},
       "kube-sandbox store compact: REVISION must be a positive integer, got \"0\""},
      {{"snapshot", "load", "f"}, "kube-sandbox store snapshot: unknown command \"load\""},
      {{"snapshot", "save"}, "kube-sandbox store snapshot save: missing FILE"},
      {{"snapshot", "restore", "a", "b"},
       "kube-sandbox store snapshot restore: too many arguments"},
      {{"status", "now"}, "kube-sandbox store status: unexpected argument \"now\""},
      {{"status", "-o", "yaml"},
       "kube-sandbox store status: unknown output format \"yaml\" (want simple, table or json)"},
      {{"defrag", "now"}, "kube-sandbox store defrag: unexpected argument \"now\""},
      {{"frob"}, "kube-sandbox store: unknown command \"frob\""},
  }));
  TempDir tmp;
  auto r = ks_store(tmp, c.args);
  CAPTURE(c.args, r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(first_line(r.err) == c.want);
  CHECK(fs::is_empty(tmp.path()));
}

TEST_CASE("an empty --data-dir is a usage error", "[store-cli]") {
  auto r = run({"store", "status", "--data-dir="});
  CHECK(r.code == 2);
  CHECK(first_line(r.err) == "kube-sandbox store status: flag --data-dir needs a non-empty value");
}

TEST_CASE("reading a data directory without a store fails without creating one", "[store-cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string command;
  };
  auto c = GENERATE(values<Case>({
      {{"get", "k"}, "store get"},
      {{"del", "k"}, "store del"},
      {{"compact", "2"}, "store compact"},
      {{"status"}, "store status"},
      {{"defrag"}, "store defrag"},
      {{"snapshot", "save", "snap.db"}, "store snapshot save"},
  }));
  TempDir tmp;
  sandbox::DataDir dir(tmp.path() / "data");
  std::vector<std::string> args = {"store"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  args.insert(args.end(), {"--data-dir", dir.root().string()});
  auto r = run(args);
  CAPTURE(args);
  CHECK(r.code == 1);
  CHECK(r.err == "kube-sandbox " + c.command + ": no store in " + dir.root().string() +
                     " (nothing was written there yet; see --data-dir)\n");
  CHECK_FALSE(fs::exists(dir.root()));
}

TEST_CASE("restore refuses a snapshot file that does not exist", "[store-cli]") {
  TempDir tmp;
  auto missing = (tmp.path() / "missing.db").string();
  auto r = ks_store(tmp, {"snapshot", "restore", missing});
  CHECK(r.code == 1);
  CHECK(r.err == "kube-sandbox store snapshot restore: no snapshot file " + missing + "\n");
}

TEST_CASE("put, get and del work like etcdctl's", "[store-cli]") {
  TempDir tmp;
  REQUIRE(ks_store(tmp, {"put", "foo", "bar"}).out == "OK\n");
  REQUIRE(ks_store(tmp, {"put", "foo/a", "1"}).code == 0);
  REQUIRE(ks_store(tmp, {"put", "foo/b", "2"}).code == 0);
  REQUIRE(ks_store(tmp, {"put", "foo/b", "3"}).code == 0);
  CHECK(fs::is_directory(tmp.path() / "store"));

  SECTION("get one key prints its key and value lines") {
    auto r = ks_store(tmp, {"get", "foo"});
    CHECK(r.code == 0);
    CHECK(r.out == "foo\nbar\n");
    CHECK(r.err.empty());
  }
  SECTION("a missing key prints nothing and succeeds") {
    auto r = ks_store(tmp, {"get", "nope"});
    CHECK(r.code == 0);
    CHECK(r.out.empty());
  }
  SECTION("--prefix, --keys-only, --count-only and --limit") {
    CHECK(ks_store(tmp, {"get", "foo/", "--prefix"}).out == "foo/a\n1\nfoo/b\n3\n");
    CHECK(ks_store(tmp, {"get", "foo", "--prefix", "--keys-only"}).out == "foo\nfoo/a\nfoo/b\n");
    CHECK(ks_store(tmp, {"get", "", "--prefix", "--count-only"}).out == "3\n");
    CHECK(ks_store(tmp, {"get", "foo/", "--from-key", "--limit", "1"}).out == "foo/a\n1\n");
    CHECK(ks_store(tmp, {"get", "foo/a", "foo/b"}).out == "foo/a\n1\n");
  }
  SECTION("-o json is etcdctl's shape with base64 keys and values") {
    auto r = ks_store(tmp, {"get", "foo", "--prefix", "--limit", "2", "-o", "json"});
    REQUIRE(r.code == 0);
    CHECK(r.out ==
          R"({"header":{"revision":5},"kvs":[)"
          R"({"key":"Zm9v","create_revision":2,"mod_revision":2,"version":1,"value":"YmFy"},)"
          R"({"key":"Zm9vL2E=","create_revision":3,"mod_revision":3,"version":1,"value":"MQ=="}],)"
          R"("more":true,"count":3})"
          "\n");
    CHECK(ks_store(tmp, {"get", "nope", "-o", "json"}).out == "{\"header\":{\"revision\":5}}\n");
  }
  SECTION("--rev reads history; compacted and future revisions fail with etcd's messages") {
    CHECK(ks_store(tmp, {"get", "foo/b", "--rev", "4"}).out == "foo/b\n2\n");
    auto future = ks_store(tmp, {"get", "foo/b", "--rev", "99"});
    CHECK(future.code == 1);
    CHECK(future.err ==
          "kube-sandbox store get: etcdserver: mvcc: required revision is a future revision\n");

    auto compact = ks_store(tmp, {"compact", "5"});
    CHECK(compact.code == 0);
    CHECK(compact.out == "compacted revision 5\n");
    auto old = ks_store(tmp, {"get", "foo/b", "--rev", "4"});
    CHECK(old.code == 1);
    CHECK(old.err ==
          "kube-sandbox store get: etcdserver: mvcc: required revision has been compacted\n");
    auto again = ks_store(tmp, {"compact", "5"});
    CHECK(again.code == 1);
    CHECK(again.err ==
          "kube-sandbox store compact: etcdserver: mvcc: required revision has been compacted\n");
  }
  SECTION("del prints the count, and with --prev-kv the deleted pairs") {
    CHECK(ks_store(tmp, {"del", "nope"}).out == "0\n");
    CHECK(ks_store(tmp, {"del", "foo/", "--prefix", "--prev-kv"}).out == "2\nfoo/a\n1\nfoo/b\n3\n");
    CHECK(ks_store(tmp, {"del", "foo"}).out == "1\n");
    CHECK(ks_store(tmp, {"get", "", "--prefix", "--count-only"}).out == "0\n");
  }
  SECTION("status reports revision, compaction and keys") {
    auto r = ks_store(tmp, {"status", "-o", "json"});
    REQUIRE(r.code == 0);
    auto doc = nlohmann::json::parse(r.out);
    CHECK(doc[0]["Endpoint"] == tmp.path().string());
    CHECK(doc[0]["Status"]["header"]["revision"] == 5);
    CHECK(doc[0]["Status"]["compactRevision"] == 0);
    CHECK(doc[0]["Status"]["keyCount"] == 3);
    CHECK(doc[0]["Status"]["dbSize"].get<int64_t>() > 0);

    auto table = ks_store(tmp, {"status", "-o", "table"});
    CHECK(table.code == 0);
    CHECK(table.out.find(" DATA DIR ") != std::string::npos);
    CHECK(table.out.find("| DB SIZE | DB SIZE IN USE | REVISION | COMPACTED | KEYS |\n") !=
          std::string::npos);
    CHECK(table.out.find(" |        5 |         0 |    3 |\n") != std::string::npos);
    auto simple = ks_store(tmp, {"status"});
    CHECK(simple.out.rfind(tmp.path().string() + ", ", 0) == 0);
    CHECK(simple.out.find(", 5, 0, 3\n") != std::string::npos);
  }
  SECTION("defrag keeps the data") {
    auto r = ks_store(tmp, {"defrag"});
    CHECK(r.code == 0);
    CHECK(r.out == "Finished defragmenting the store in " + tmp.path().string() + "\n");
    CHECK(ks_store(tmp, {"get", "foo/b"}).out == "foo/b\n3\n");
  }
}

TEST_CASE("a snapshot restores the store at the snapshot's revision", "[store-cli]") {
  TempDir tmp;
  TempDir other;
  auto snap = (other.path() / "snap.db").string();
  REQUIRE(ks_store(tmp, {"put", "k", "v1"}).code == 0);
  auto saved = ks_store(tmp, {"snapshot", "save", snap});
  CHECK(saved.code == 0);
  CHECK(saved.out == "Snapshot saved at " + snap + "\n");
  REQUIRE(ks_store(tmp, {"put", "k", "v2"}).code == 0);
  REQUIRE(ks_store(tmp, {"put", "gone", "x"}).code == 0);

  auto restored = ks_store(tmp, {"snapshot", "restore", snap});
  CHECK(restored.code == 0);
  CHECK(restored.out ==
        "Snapshot restored from " + snap + " into " + tmp.path().string() + " at revision 2\n");
  CHECK(ks_store(tmp, {"get", "", "--prefix"}).out == "k\nv1\n");
}

TEST_CASE("while another holder has the store open, every command refuses with exit 1",
          "[store-cli]") {
  TempDir tmp;
  REQUIRE(ks_store(tmp, {"put", "k", "v"}).code == 0);
  store::Options options;
  options.dir = tmp.path() / "store";
  auto held = store::Store::open(options);
  REQUIRE(held.is_ok());

  auto args = GENERATE(values<std::vector<std::string>>({
      {"get", "k"},
      {"put", "k", "w"},
      {"del", "k"},
      {"compact", "1"},
      {"status"},
      {"defrag"},
      {"snapshot", "save", "never.db"},
  }));
  CAPTURE(args);
  auto r = ks_store(tmp, args);
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find(": the data directory " + tmp.path().string() +
                   " is held by another process (a running kube-sandbox server?); stop it "
                   "first, or use the server's API\n") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
