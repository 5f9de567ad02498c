#include "etcd_servers_flags.h"

#include "common/read_file.h"

namespace sandbox {

namespace {

using Options = std::optional<etcdwire::ClientOptions>;

common::Result<Options> failure(std::string message) {
  return common::Result<Options>::failure(std::move(message));
}

}  // namespace

std::vector<FlagSpec> etcd_servers_flags() {
  return {
      {"etcd-servers", "", true, "URLS",
       "keep the store in this etcd cluster instead of the embedded one: its members' client "
       "URLs, comma-separated (IP addresses or localhost when there are several)"},
      {"etcd-cafile", "", true, "FILE", "the CA that signed the etcd members' certificates"},
      {"etcd-certfile", "", true, "FILE", "the client certificate for etcd"},
      {"etcd-keyfile", "", true, "FILE", "its key"},
      {"etcd-prefix", "", true, "PREFIX",
       "where the objects live in etcd; only kube-apiserver's default, /registry"},
  };
}

common::Result<Options> etcd_servers_options(const ParsedFlags& flags) {
  for (const char* flag : {"etcd-cafile", "etcd-certfile", "etcd-keyfile", "etcd-prefix"}) {
    if (flags.has(flag) && !flags.has("etcd-servers")) {
      return failure(std::string("--") + flag + " needs --etcd-servers");
    }
  }
  if (!flags.has("etcd-servers")) {
    return Options{};
  }
  if (flags.has("etcd-prefix") && flags.get("etcd-prefix") != "/registry" &&
      flags.get("etcd-prefix") != "/registry/") {
    return failure("--etcd-prefix " + flags.get("etcd-prefix") +
                   ": kube-sandbox keeps objects under /registry, kube-apiserver's default");
  }
  if (flags.has("etcd-certfile") != flags.has("etcd-keyfile")) {
    return failure("--etcd-certfile and --etcd-keyfile go together");
  }
  etcdwire::ClientOptions options;
  options.endpoint = flags.get("etcd-servers");
  if (flags.has("etcd-cafile") || flags.has("etcd-certfile")) {
    etcdwire::ClientTls tls;
    for (auto [flag, target] :
         {std::pair{"etcd-cafile", &tls.ca_pem}, std::pair{"etcd-certfile", &tls.cert_pem},
          std::pair{"etcd-keyfile", &tls.key_pem}}) {
      if (!flags.has(flag)) {
        continue;
      }
      auto text = common::read_file(flags.get(flag));
      if (!text) {
        return failure(std::string("--") + flag + " " + text.error().message);
      }
      *target = std::move(*text);
    }
    options.tls = std::move(tls);
  }
  return Options{std::move(options)};
}

}  // namespace sandbox
