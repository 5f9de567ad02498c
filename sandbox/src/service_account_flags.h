// serve's flags for service-account tokens, as kube-apiserver's: --service-account-issuer,
// --service-account-key-file, --service-account-signing-key-file, --api-audiences,
// --service-account-max-token-expiration, --service-account-extend-token-expiration and
// --service-account-jwks-uri. The sandbox's defaults are a kubeadm cluster's: the issuer
// https://kubernetes.default.svc.cluster.local, and the data directory's sa.key (generated at
// first start) as the signing key, with its public key as the one verification key.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "apiserver/service_accounts.h"
#include "common/result.h"
#include "flags.h"

namespace sandbox {

std::vector<FlagSpec> service_account_flags();

// What the flags ask for, before any file is read: the issuers, key file names and audiences
// given, the expiration rules; the error is a usage error's text.
struct ServiceAccountFlags {
  std::vector<std::string> issuers;
  std::vector<std::string> key_files;
  std::string signing_key_file;  // empty: the data directory's sa.key
  std::vector<std::string> api_audiences;
  std::chrono::seconds max_expiration{0};
  bool extend_expiration = true;
  std::string jwks_uri;
};
common::Result<ServiceAccountFlags> service_account_flags(const ParsedFlags& flags);

// The options with the key files read (the signing key made in `pki_dir` when no file is named)
// and checked as kube-apiserver checks them; the error names the file or the flag.
common::Result<apiserver::ServiceAccountOptions> service_account_options(
    const ServiceAccountFlags& flags, const std::filesystem::path& pki_dir);

}  // namespace sandbox
