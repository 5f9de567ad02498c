// serve's --service-account-* flags: repeated values, list flags, the boolean that defaults to
// true, and the data directory's key pair made once and reused.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "../temp_dir.h"
#include "flags.h"
#include "service_account_flags.h"

namespace {

sandbox::ParsedFlags parse(const std::vector<std::string>& args) {
  auto parsed = sandbox::FlagSet(sandbox::service_account_flags()).parse(args);
  REQUIRE(parsed);
  return *parsed;
}

unsigned mode_of(const std::filesystem::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

}  // namespace

TEST_CASE("service-account flags read as kube-apiserver's", "[sandbox][serviceaccount]") {
  auto flags = sandbox::service_account_flags(
      parse({"--service-account-issuer", "https://a", "--service-account-issuer=https://b",
             "--api-audiences=x,y", "--api-audiences", "z",
             "--service-account-extend-token-expiration=false",
             "--service-account-max-token-expiration=24h"}));
  REQUIRE(flags);
  CHECK(flags->issuers == std::vector<std::string>{"https://a", "https://b"});
  CHECK(flags->api_audiences == std::vector<std::string>{"x", "y", "z"});
  CHECK_FALSE(flags->extend_expiration);
  CHECK(flags->max_expiration == std::chrono::hours(24));
  auto defaults = sandbox::service_account_flags(parse({}));
  REQUIRE(defaults);
  CHECK(defaults->extend_expiration);
  CHECK(defaults->issuers.empty());
  auto bad = sandbox::service_account_flags(parse({"--service-account-max-token-expiration=soon"}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error() ==
        "--service-account-max-token-expiration must be a duration such as 24h, got \"soon\"");
}

TEST_CASE("the data directory's service-account key is made once and kept",
          "[sandbox][serviceaccount]") {
  testing_support::TempDir dir("ks-sa");
  const auto pki = dir.path() / "pki";
  auto defaults = sandbox::service_account_flags(parse({}));
  REQUIRE(defaults);
  auto first = sandbox::service_account_options(*defaults, pki);
  REQUIRE(first);
  CHECK(first->signing_key_pem.rfind("-----BEGIN RSA PRIVATE KEY-----", 0) == 0);
  CHECK(mode_of(pki / "sa.key") == 0600);
  CHECK(mode_of(pki / "sa.pub") == 0644);
  CHECK(testing_support::read_file(pki / "sa.pub").rfind("-----BEGIN PUBLIC KEY-----", 0) == 0);
  auto second = sandbox::service_account_options(*defaults, pki);
  REQUIRE(second);
  CHECK(second->signing_key_pem == first->signing_key_pem);

  auto flags = sandbox::service_account_flags(
      parse({"--service-account-key-file", (dir.path() / "missing.pub").string(),
             "--service-account-issuer", "https://a", "--service-account-issuer", "https://a"}));
  REQUIRE(flags);
  auto missing = sandbox::service_account_options(*flags, pki);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().rfind(
            "--service-account-key-file " + (dir.path() / "missing.pub").string() + ":", 0) == 0);
  testing_support::overwrite_file(dir.path() / "junk.pub", "junk");
  flags->key_files = {(dir.path() / "junk.pub").string()};
  auto refused = sandbox::service_account_options(*flags, pki);
  REQUIRE_FALSE(refused);
  CHECK(refused.error() ==
        "service-account-issuer \"https://a\" is already specified\n"
        "failed to parse key file \"" +
            (dir.path() / "junk.pub").string() + "\": error reading public key file " +
            (dir.path() / "junk.pub").string() +
            ": data does not contain any valid RSA or ECDSA public keys");
}
