// certificates.k8s.io: CertificateSigningRequests (defaults, validation, what each write path may
// change: spec and status from the main resource, conditions from /approval, the rest of status
// from /status) and ClusterTrustBundles; printers.
#include "registry/kinds/kinds.h"

#include <set>
#include <string>
#include <vector>

#include "common/base64.h"
#include "registry/certificate_request.h"
#include "registry/go_text.h"
#include "registry/print_cells.h"
#include "registry/table.h"

namespace apiserver::registry::kinds {

namespace {

// certificates.k8s.io/v1 KeyUsage values, sorted (the NotSupported list).
const std::vector<std::string>& valid_usages() {
  static const std::vector<std::string> all = {"any",
                                               "cert sign",
                                               "client auth",
                                               "code signing",
                                               "content commitment",
                                               "crl sign",
                                               "data encipherment",
                                               "decipher only",
                                               "digital signature",
                                               "email protection",
                                               "encipher only",
                                               "ipsec end system",
                                               "ipsec tunnel",
                                               "ipsec user",
                                               "key agreement",
                                               "key encipherment",
                                               "microsoft sgc",
                                               "netscape sgc",
                                               "ocsp signing",
                                               "s/mime",
                                               "server auth",
                                               "signing",
                                               "timestamping"};
  return all;
}

// Go's %#v of a []byte: how field.Invalid shows spec.request.
std::string go_bytes(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "[]byte{";
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += i == 0 ? "0x" : ", 0x";
    if (b >= 16) {
      out += kHex[b >> 4];
    }
    out += kHex[b & 0xf];
  }
  return out + "}";
}

const json& field(const json& object, const char* a, const char* b) {
  static const json kNull;
  auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) {
    return kNull;
  }
  auto inner = outer->find(b);
  return inner == outer->end() ? kNull : *inner;
}

void validate_conditions(const json& conditions, std::vector<FieldError>& out) {
  if (!conditions.is_array()) {
    return;
  }
  std::set<std::string> seen;
  bool approved = false;
  bool denied = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const json& c = conditions[i];
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const std::string type = c.is_object() && c.contains("type") && c["type"].is_string()
                                 ? c["type"].get<std::string>()
                                 : "";
    const std::string status = c.is_object() && c.contains("status") && c["status"].is_string()
                                   ? c["status"].get<std::string>()
                                   : "";
    if (type.empty()) {
      out.push_back(required_value(at + ".type", ""));
    }
    const bool only_true = type == "Approved" || type == "Denied";
    if (status.empty()) {
      out.push_back(required_value(at + ".status", ""));
    } else if (only_true ? status != "True"
                         : status != "True" && status != "False" && status != "Unknown") {
      out.push_back(not_supported(at + ".status", go_quote(status), {"True"}));
    }
    if ((type == "Approved" && denied) || (type == "Denied" && approved)) {
      out.push_back(invalid_value("status.conditions", type,
                                  "Approved and Denied conditions are mutually exclusive"));
    }
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    if (!seen.insert(type).second) {
      out.push_back(duplicate(at + ".type", go_quote(type)));
    }
  }
}

// ValidateCertificateSigningRequest (v1): the request parses, usages are given, known and not
// repeated, the signer is named domain/path (the legacy-unknown signer is v1beta1's alone), a
// requested duration is at least 10 minutes, the conditions are consistent.
void validate_csr(const json& object, std::vector<FieldError>& out) {
  const json& request = field(object, "spec", "request");
  const std::string encoded = request.is_string() ? request.get<std::string>() : "";
  const std::string pem = common::base64_decode(encoded).value_or("");
  if (std::string problem = certificate_request_problem(pem); !problem.empty()) {
    out.push_back(invalid_rendered("spec.request", go_bytes(pem), problem));
  }
  const json& usages = field(object, "spec", "usages");
  if (!usages.is_array() || usages.empty()) {
    out.push_back(required_value("spec.usages", ""));
  } else {
    std::set<std::string> seen;
    for (size_t i = 0; i < usages.size(); ++i) {
      const std::string usage = usages[i].is_string() ? usages[i].get<std::string>() : "";
      const std::string at = "spec.usages[" + std::to_string(i) + "]";
      const auto& valid = valid_usages();
      if (std::find(valid.begin(), valid.end(), usage) == valid.end()) {
        out.push_back(not_supported(at, go_quote(usage), valid));
      }
      if (!seen.insert(usage).second) {
        out.push_back(duplicate(at, go_quote(usage)));
      }
    }
  }
  const json& signer = field(object, "spec", "signerName");
  const std::string signer_name = signer.is_string() ? signer.get<std::string>() : "";
  if (signer_name == "kubernetes.io/legacy-unknown") {
    out.push_back(invalid_value("spec.signerName", signer_name,
                                "the legacy signerName is not allowed via this API version"));
  } else if (signer_name.empty()) {
    out.push_back(required_value("spec.signerName", ""));
  } else if (std::count(signer_name.begin(), signer_name.end(), '/') != 1) {
    out.push_back(invalid_value(
        "spec.signerName", signer_name,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
  }
  const json& seconds = field(object, "spec", "expirationSeconds");
  if (seconds.is_number_integer() && seconds.get<int64_t>() < 600) {
    out.push_back(
        invalid_rendered("spec.expirationSeconds", seconds.dump(),
                         "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  validate_conditions(field(object, "status", "conditions"), out);
  const json& certificate = field(object, "status", "certificate");
  if (certificate.is_string() && !certificate.get<std::string>().empty()) {
    const std::string text = common::base64_decode(certificate.get<std::string>()).value_or("");
    if (text.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      out.push_back(invalid_rendered("status.certificate", "\"<certificate data>\"",
                                     "must contain at least one CERTIFICATE PEM block"));
    }
  }
}

// Once issued, a certificate stays as it is.
void validate_csr_update(const json& object, const json& old, std::vector<FieldError>& out) {
  const json& before = field(old, "status", "certificate");
  if (before.is_string() && !before.get<std::string>().empty() &&
      field(object, "status", "certificate") != before) {
    out.push_back(
        forbidden("status.certificate", "updates may not modify existing certificate content"));
  }
}

// SetDefaults_CertificateSigningRequestCondition: a condition without a status is True.
void default_csr(json& object, const DefaultingContext&) {
  auto status = object.find("status");
  if (status == object.end() || !status->is_object()) {
    return;
  }
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) {
    return;
  }
  for (json& c : *conditions) {
    if (c.is_object() && (!c.contains("status") || c["status"] == "")) {
      c["status"] = "True";
    }
  }
}

// Through the main resource only metadata changes.
void keep_csr_spec_and_status(json& updated, const json& old) {
  for (const char* part : {"spec", "status"}) {
    if (old.contains(part)) {
      updated[part] = old[part];
    } else {
      updated.erase(part);
    }
  }
}

json conditions_of(const json& object) {
  const json& c = field(object, "status", "conditions");
  return c.is_array() ? c : json::array();
}

// Through /status the spec stays and so do the Approved and Denied conditions (only /approval
// sets them); through /approval only the conditions change. Either way a condition without
// times gets lastUpdateTime now and lastTransitionTime from the same type and status before, or
// now.
void prepare_csr_subresource(std::string_view subresource, json& updated, const json& old,
                             const std::string& now) {
  if (old.contains("spec")) {
    updated["spec"] = old["spec"];
  }
  json conditions = conditions_of(updated);
  const json before = conditions_of(old);
  if (subresource == "status") {
    json kept = json::array();
    for (const json& c : conditions) {
      const std::string type = c.is_object() ? c.value("type", json()).dump() : "";
      if (type != "\"Approved\"" && type != "\"Denied\"") {
        kept.push_back(c);
      }
    }
    for (const json& c : before) {
      const std::string type = c.is_object() ? c.value("type", json()).dump() : "";
      if (type == "\"Approved\"" || type == "\"Denied\"") {
        kept.push_back(c);
      }
    }
    conditions = std::move(kept);
  }
  for (json& c : conditions) {
    if (!c.is_object()) {
      continue;
    }
    if (!c.contains("lastUpdateTime") || c["lastUpdateTime"].is_null()) {
      c["lastUpdateTime"] = now;
    }
    if (!c.contains("lastTransitionTime") || c["lastTransitionTime"].is_null()) {
      json transition = now;
      for (const json& o : before) {
        if (o.is_object() && o.value("type", json()) == c.value("type", json()) &&
            o.value("status", json()) == c.value("status", json()) &&
            o.contains("lastTransitionTime") && !o["lastTransitionTime"].is_null()) {
          transition = o["lastTransitionTime"];
          break;
        }
      }
      c["lastTransitionTime"] = transition;
    }
  }
  if (!conditions.empty() || (updated.contains("status") && updated["status"].is_object() &&
                              updated["status"].contains("conditions"))) {
    updated["status"]["conditions"] = std::move(conditions);
  }
}

namespace print {
using namespace cells;

json print_csr(const json& obj, const Context& c) {
  const json& spec = at(obj, "spec");
  bool approved = false;
  bool denied = false;
  bool failed = false;
  for (const auto& cond : arr(at(obj, "status", "conditions"))) {
    const std::string type = str(at(cond, "type"));
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string state = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) {
    state += ",Failed";
  }
  if (!str(at(obj, "status", "certificate")).empty()) {
    state += ",Issued";
  }
  const std::string signer = str(at(spec, "signerName"));
  std::string requested = "<none>";
  if (present(at(spec, "expirationSeconds"))) {
    requested = human_duration(std::chrono::seconds(integer(at(spec, "expirationSeconds"))));
  }
  return json::array({name_of(obj), age(obj, c), signer.empty() ? "<none>" : signer,
                      str(at(spec, "username")), requested, state});
}

json print_cluster_trust_bundle(const json& obj, const Context&) {
  const std::string signer = str(at(obj, "spec", "signerName"));
  return json::array({name_of(obj), signer.empty() ? "<none>" : signer});
}

}  // namespace print

}  // namespace

void add_certificates(Strategies& s) {
  s.push_back({.group = "certificates.k8s.io",
               .kind = "CertificateSigningRequest",
               .defaults = default_csr,
               .validate = validate_csr,
               .validate_update = validate_csr_update,
               .print = print::print_csr,
               .prepare_for_update = keep_csr_spec_and_status,
               .prepare_for_subresource_update = prepare_csr_subresource});
  s.push_back({.group = "certificates.k8s.io",
               .kind = "ClusterTrustBundle",
               .print = print::print_cluster_trust_bundle});
}

}  // namespace apiserver::registry::kinds
