// `kube-sandbox snapshot` offline, on a data directory: usage errors, a save/restore round trip
// through the command line, and the refusal while the store is held.
#include <catch2/catch.hpp>
#include <random>
#include <sstream>

#include "cli.h"
#include "cli_run.h"
#include "store/store.h"

namespace {

using cli_test::Run;
using cli_test::run;
using cli_test::TempDir;

std::unique_ptr<store::Store> open_store(const std::filesystem::path& data_dir) {
  store::Options options;
  options.dir = data_dir / "store";
  options.durability = store::Durability::NoSync;
  auto opened = store::Store::open(options);
  REQUIRE(opened.is_ok());
  return std::move(opened).value();
}

void put(store::Store& db, const std::string& key, const std::string& value) {
  store::PutRequest request;
  request.key = key;
  request.value = value;
  REQUIRE(db.put(request).is_ok());
}

std::map<std::string, std::string> contents(store::Store& db) {
  store::RangeRequest request;
  request.key = std::string(1, '\0');
  request.range_end = std::string(1, '\0');
  auto all = db.range(request);
  REQUIRE(all.is_ok());
  std::map<std::string, std::string> out;
  for (const auto& kv : all->kvs) {
    out[kv.key] = kv.value;
  }
  return out;
}

}  // namespace

TEST_CASE("snapshot commands refuse a wrong command line with exit code 2", "[cli][snapshot]") {
  CHECK(run({"--help"}).out.find("\n  snapshot ") != std::string::npos);
  auto missing = run({"snapshot", "save", "--data-dir", "/nonexistent"});
  CHECK(missing.code == 2);
  CHECK(missing.err.rfind("kube-sandbox snapshot save: missing NAME\n", 0) == 0);
  auto bad = run({"snapshot", "restore", "Base", "--data-dir", "/nonexistent"});
  CHECK(bad.code == 2);
  CHECK(bad.err.rfind("kube-sandbox snapshot restore: invalid snapshot name \"Base\"", 0) == 0);
  auto both = run({"snapshot", "save", "a", "--data-dir", "/d", "--kubeconfig", "/k"});
  CHECK(both.code == 2);
  CHECK(both.err.find("exclude each other") != std::string::npos);
  CHECK(run({"snapshot", "list", "-o", "yaml", "--data-dir", "/d"}).code == 2);
  CHECK(run({"snapshot", "frob"}).code == 2);
}

TEST_CASE("snapshot save and restore work offline on a data directory", "[cli][snapshot]") {
  TempDir data;
  auto none = run({"snapshot", "save", "base", "--data-dir", data.str()});
  CHECK(none.code == 1);
  CHECK(none.err.find("no store in " + data.str()) != std::string::npos);

  std::map<std::string, std::string> saved;
  {
    auto db = open_store(data.path());
    put(*db, "/registry/a", "1");
    put(*db, "/registry/b", "2");
    saved = contents(*db);
    // The store is held: save is refused.
    auto held = run({"snapshot", "save", "base", "--data-dir", data.str()});
    CHECK(held.code == 1);
    CHECK(held.err.find("is held by a running kube-sandbox server") != std::string::npos);
  }
  auto save = run({"snapshot", "save", "base", "--data-dir", data.str()});
  INFO(save.err);
  REQUIRE(save.code == 0);
  CHECK(save.out.rfind("snapshot \"base\" saved at revision 3 (", 0) == 0);

  int64_t changed_at = 0;
  {
    auto db = open_store(data.path());
    put(*db, "/registry/a", "changed");
    put(*db, "/registry/c", "new");
    changed_at = db->current_revision();
  }
  auto restore = run({"snapshot", "restore", "base", "--data-dir", data.str()});
  INFO(restore.err);
  REQUIRE(restore.code == 0);
  CHECK(restore.out.rfind("snapshot \"base\" restored at revision " +
                              std::to_string(changed_at + 1) +
                              ": 1 written, 1 deleted, 1 unchanged in ",
                          0) == 0);
  {
    auto db = open_store(data.path());
    CHECK(contents(*db) == saved);
    CHECK(db->current_revision() == changed_at + 1);
  }

  CHECK(run({"snapshot", "list", "-o", "name", "--data-dir", data.str()}).out == "base\n");
  auto table = run({"snapshot", "list", "--data-dir", data.str()});
  CHECK(table.out.rfind("NAME   REVISION", 0) == 0);
  CHECK(table.out.find("\nbase   3 ") != std::string::npos);
  auto unknown = run({"snapshot", "restore", "other", "--data-dir", data.str()});
  CHECK(unknown.code == 1);
  CHECK(unknown.err == "kube-sandbox snapshot restore: snapshots \"other\" not found\n");
  CHECK(run({"snapshot", "delete", "base", "--data-dir", data.str()}).code == 0);
  CHECK(run({"snapshot", "list", "--data-dir", data.str()}).out == "No snapshots.\n");
  CHECK(run({"snapshot", "delete", "base", "--data-dir", data.str()}).code == 1);
}
