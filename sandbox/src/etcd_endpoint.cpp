#include "etcd_endpoint.h"

namespace sandbox {

FlagSpec etcd_listen_flag() {
  return {"etcd-listen", "", true, "URL",
          "serve the store's etcd v3 API here: http://HOST:PORT, or https:// with the data "
          "directory's certificates and client certificates required; port 0 picks a free "
          "port, none turns it off (default " +
              std::string(kDefaultEtcdListen) + ")"};
}

common::Result<EtcdListen> etcd_listen(const ParsedFlags& flags) {
  EtcdListen listen;
  listen.chosen = flags.has("etcd-listen");
  std::string text = flags.get("etcd-listen", kDefaultEtcdListen);
  if (text == "none") {
    return listen;
  }
  std::string error;
  listen.url = etcdwire::ListenUrl::parse(text, error);
  if (!listen.url) {
    return common::Result<EtcdListen>::failure("--etcd-listen " + text + ": " + error);
  }
  return listen;
}

common::Result<StartedEndpoint> start_etcd_endpoint(store::Store& db, const EtcdListen& listen,
                                                    const apiserver::pki::Pki& pki) {
  StartedEndpoint started;
  if (!listen.url) {
    return started;
  }
  etcdwire::ServerOptions options;
  options.listen = *listen.url;
  options.member_name = "kube-sandbox";
  if (options.listen.tls) {
    options.tls = etcdwire::TlsFiles{pki.serving_cert_pem, pki.serving_key_pem, pki.ca_cert_pem};
  }
  std::string error;
  started.server = etcdwire::Server::start(db, options, error);
  if (!started.server) {
    if (listen.chosen) {
      return common::Result<StartedEndpoint>::failure("--etcd-listen: " + error);
    }
    started.warning = "no etcd endpoint: " + error + "; --etcd-listen picks another address";
  }
  return started;
}

std::string etcdctl_hint(const etcdwire::Server& server, const apiserver::pki::Pki& pki) {
  std::string hint = "etcdctl --endpoints=" + server.url();
  if (server.url().rfind("https://", 0) == 0) {
    hint += " --cacert=" + pki.ca_cert_file.string() + " --cert=" + pki.admin_cert_file.string() +
            " --key=" + pki.admin_key_file.string();
  }
  return hint;
}

}  // namespace sandbox
