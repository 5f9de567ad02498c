// Texts and paths below follow kube-apiserver v1.32's validation (pkg/apis/*/validation and
// apimachinery's metadata and label validation). Where a text could not be confirmed against an
// upstream source it carries a "text unverified" comment.
#include "registry/validation.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "registry/cron_schedule.h"
#include "registry/go_values.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;
using Errors = std::vector<FieldError>;

const char* kImmutable = "field is immutable";
const char* kNegative = "must be greater than or equal to 0";
const char* kSelectorMismatch = "`selector` does not match template `labels`";

const json& null_json() {
  static const json kNull;
  return kNull;
}

const json& get(const json& j, const char* key) {
  if (!j.is_object()) {
    return null_json();
  }
  auto it = j.find(key);
  return it == j.end() ? null_json() : *it;
}

std::string str(const json& j, const char* key) {
  const json& v = get(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool present(const json& j, const char* key) { return !get(j, key).is_null(); }

std::string index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string key_of(const std::string& path, const std::string& key) {
  return path + "[" + key + "]";
}

// Numbers print bare, strings %q, anything else as its JSON text.
std::string render_scalar(const json& v) {
  if (v.is_string()) {
    return go_quote(v.get<std::string>());
  }
  return v.dump();
}

// Go %#v of a map[string]string; JSON null → nil map.
std::string go_string_map(const json& m) {
  if (!m.is_object()) {
    return "map[string]string(nil)";
  }
  std::string out = "map[string]string{";
  bool first = true;
  for (auto it = m.begin(); it != m.end(); ++it) {  // nlohmann objects iterate in key order
    out += (first ? "" : ", ") + go_quote(it.key()) + ":" +
           go_quote(it->is_string() ? it->get<std::string>() : it->dump());
    first = false;
  }
  return out + "}";
}

// *metav1.LabelSelector as field.Error prints it: through its generated String() method.
std::string go_label_selector(const json& sel) {
  if (!sel.is_object()) {
    return "null";
  }
  std::string labels = "map[string]string{";
  for (auto it = get(sel, "matchLabels").begin(); get(sel, "matchLabels").is_object() &&
                                                  it != get(sel, "matchLabels").end();
       ++it) {
    labels += it.key() + ": " + (it->is_string() ? it->get<std::string>() : it->dump()) + ",";
  }
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  const json& list = get(sel, "matchExpressions");
  if (list.is_array()) {
    for (const auto& e : list) {
      std::string values = "[";
      const json& vs = get(e, "values");
      if (vs.is_array()) {
        for (size_t i = 0; i < vs.size(); ++i) {
          values += (i ? " " : "") + (vs[i].is_string() ? vs[i].get<std::string>() : vs[i].dump());
        }
      }
      values += "]";
      exprs += "LabelSelectorRequirement{Key:" + str(e, "key") + ",Operator:" +
               str(e, "operator") + ",Values:" + values + ",},";
    }
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

// ---------------------------------------------------------------------------------------------
// Metadata

void validate_labels(const json& labels, const std::string& path, Errors& out) {
  if (!labels.is_object()) {
    return;
  }
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    for (const auto& msg : label_key_problems(it.key())) {
      out.push_back(invalid_value(path, it.key(), msg));
    }
    const std::string value = it->is_string() ? it->get<std::string>() : std::string();
    for (const auto& msg : label_value_problems(value)) {
      out.push_back(invalid_value(path, value, msg));
    }
  }
}

void validate_annotations(const json& annotations, const std::string& path, Errors& out) {
  if (!annotations.is_object()) {
    return;
  }
  size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    std::string lower = it.key();
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& msg : label_key_problems(lower)) {
      out.push_back(invalid_value(path, it.key(), msg));
    }
    total += it.key().size() + (it->is_string() ? it->get<std::string>().size() : 0);
  }
  if (total > 256 * 1024) {
    out.push_back(too_long(path, 256 * 1024));
  }
}

// `core`: the core API's rule on top of apimachinery's (a finalizer is standard or has a '/'); the
// apiextensions server (CRDs and custom resources) validates with apimachinery's alone.
void validate_finalizers(const json& finalizers, const std::string& path, bool core, Errors& out) {
  if (!finalizers.is_array()) {
    return;
  }
  static const std::set<std::string> kStandard = {"kubernetes", "orphan", "foregroundDeletion"};
  for (const auto& f : finalizers) {
    const std::string name = f.is_string() ? f.get<std::string>() : std::string();
    auto problems = label_key_problems(name);
    for (const auto& msg : problems) {
      out.push_back(invalid_value(path, name, msg));
    }
    // Core's finalizer rule (text unverified against 1.32).
    if (core && problems.empty() && name.find('/') == std::string::npos &&
        !kStandard.count(name)) {
      out.push_back(invalid_value(
          path, name, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
}

void validate_object_meta(const Resource& r, const json& meta, Errors& out) {
  const NameRule rule = name_rule_for(r.group, r.resource);
  const std::string generate = str(meta, "generateName");
  const std::string name = str(meta, "name");
  if (!generate.empty()) {
    for (const auto& msg : name_problems(generate, rule, true)) {
      out.push_back(invalid_value("metadata.generateName", generate, msg));
    }
  }
  if (name.empty()) {
    out.push_back(required_value("metadata.name", "name or generateName is required"));
  } else {
    for (const auto& msg : name_problems(name, rule, false)) {
      out.push_back(invalid_value("metadata.name", name, msg));
    }
  }
  const std::string ns = str(meta, "namespace");
  if (r.namespaced) {
    if (ns.empty()) {
      out.push_back(required_value("metadata.namespace", ""));
    } else {
      for (const auto& msg : name_problems(ns, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value("metadata.namespace", ns, msg));
      }
    }
  } else if (!ns.empty()) {
    // kube-apiserver clears the namespace of cluster-scoped objects before validating.
    out.push_back(forbidden("metadata.namespace", "not allowed on this type"));
  }
  const json& generation = get(meta, "generation");
  if (generation.is_number_integer() && generation.get<int64_t>() < 0) {
    out.push_back(invalid_rendered("metadata.generation", generation.dump(), kNegative));
  }
  validate_labels(get(meta, "labels"), "metadata.labels", out);
  validate_annotations(get(meta, "annotations"), "metadata.annotations", out);
  validate_finalizers(get(meta, "finalizers"), "metadata.finalizers",
                     !r.custom && !(r.group == "apiextensions.k8s.io"), out);
}

void validate_object_meta_update(const json& meta, const json& old_meta, Errors& out) {
  auto immutable = [&](const char* key) {
    const json& now = get(meta, key);
    const json& before = get(old_meta, key);
    if (now != before) {
      out.push_back(invalid_rendered(std::string("metadata.") + key,
                                     now.is_null() ? "\"\"" : render_scalar(now), kImmutable));
    }
  };
  immutable("name");
  immutable("namespace");
  // uid and creationTimestamp are owned by the server, which carries them over on update.
}

// ---------------------------------------------------------------------------------------------
// Label selectors (metav1.LabelSelector)

void validate_label_selector(const json& sel, const std::string& path, Errors& out) {
  if (!sel.is_object()) {
    return;
  }
  validate_labels(get(sel, "matchLabels"), path + ".matchLabels", out);
  const json& exprs = get(sel, "matchExpressions");
  if (!exprs.is_array()) {
    return;
  }
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::string p = index(path + ".matchExpressions", i);
    const std::string op = str(exprs[i], "operator");
    const json& values = get(exprs[i], "values");
    const size_t n = values.is_array() ? values.size() : 0;
    if (op == "In" || op == "NotIn") {
      if (n == 0) {
        out.push_back(required_value(p + ".values",
                                     "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (n > 0) {
        out.push_back(forbidden(
            p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      out.push_back(invalid_value(p + ".operator", op, "not a valid selector operator"));
    }
    const std::string key = str(exprs[i], "key");
    for (const auto& msg : label_key_problems(key)) {
      out.push_back(invalid_value(p + ".key", key, msg));
    }
  }
}

bool selector_is_empty(const json& sel) {
  const json& ml = get(sel, "matchLabels");
  const json& me = get(sel, "matchExpressions");
  return (!ml.is_object() || ml.empty()) && (!me.is_array() || me.empty());
}

// metav1.LabelSelectorAsSelector(sel).Matches(labels); null selects nothing.
bool selector_matches(const json& sel, const json& labels) {
  if (!sel.is_object()) {
    return false;
  }
  auto value_of = [&](const std::string& k) -> std::optional<std::string> {
    const json& v = get(labels, k.c_str());
    if (!v.is_string()) {
      return std::nullopt;
    }
    return v.get<std::string>();
  };
  const json& ml = get(sel, "matchLabels");
  if (ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      auto v = value_of(it.key());
      if (!v || !it->is_string() || *v != it->get<std::string>()) {
        return false;
      }
    }
  }
  const json& me = get(sel, "matchExpressions");
  if (me.is_array()) {
    for (const auto& e : me) {
      const auto v = value_of(str(e, "key"));
      const std::string op = str(e, "operator");
      bool listed = false;
      const json& vs = get(e, "values");
      if (v && vs.is_array()) {
        listed = std::any_of(vs.begin(), vs.end(),
                             [&](const json& x) { return x.is_string() && x == *v; });
      }
      if ((op == "In" && !listed) || (op == "NotIn" && listed) || (op == "Exists" && !v) ||
          (op == "DoesNotExist" && v)) {
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Quantities (resource.Quantity), compared by value (go_quantity_value).

std::string quantity_text(const json& q) {
  return q.is_string() ? q.get<std::string>() : q.dump();
}

// ---------------------------------------------------------------------------------------------
// Pod spec (Pods and every pod template)

const std::vector<std::string> kProtocols = {"SCTP", "TCP", "UDP"};

void validate_port_number(const json& port, const std::string& path, Errors& out) {
  const int64_t n = port.is_number_integer() ? port.get<int64_t>() : 0;
  if (n < 1 || n > 65535) {
    out.push_back(invalid_rendered(path, port.dump(), "must be between 1 and 65535, inclusive"));
  }
}

void validate_protocol(const json& container, const std::string& path, Errors& out) {
  const std::string protocol = str(container, "protocol");
  if (protocol.empty()) {
    out.push_back(required_value(path, ""));
  } else if (std::find(kProtocols.begin(), kProtocols.end(), protocol) == kProtocols.end()) {
    out.push_back(not_supported(path, go_quote(protocol), kProtocols));
  }
}

void validate_container_ports(const json& ports, const std::string& path, Errors& out) {
  if (!ports.is_array()) {
    return;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const std::string p = index(path, i);
    const std::string name = str(ports[i], "name");
    if (!name.empty()) {
      for (const auto& msg : port_name_problems(name)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    const json& container_port = get(ports[i], "containerPort");
    if (!container_port.is_number_integer() || container_port.get<int64_t>() == 0) {
      out.push_back(required_value(p + ".containerPort", ""));
    } else {
      validate_port_number(container_port, p + ".containerPort", out);
    }
    const json& host_port = get(ports[i], "hostPort");
    if (host_port.is_number_integer() && host_port.get<int64_t>() != 0) {
      validate_port_number(host_port, p + ".hostPort", out);
    }
    validate_protocol(ports[i], p + ".protocol", out);
  }
}

void validate_resources(const json& resources, const std::string& path, Errors& out) {
  const json& limits = get(resources, "limits");
  const json& requests = get(resources, "requests");
  if (!requests.is_object()) {
    return;
  }
  for (auto it = requests.begin(); it != requests.end(); ++it) {
    const json& limit = get(limits, it.key().c_str());
    const auto request_value = go_quantity_value(*it);
    const auto limit_value = go_quantity_value(limit);
    if (request_value && limit_value && *request_value > *limit_value) {
      // Upstream prints both quantities in canonical form; inputs are echoed as written.
      out.push_back(invalid_value(key_of(path + ".requests", it.key()), quantity_text(*it),
                                  "must be less than or equal to " + it.key() + " limit of " +
                                      quantity_text(limit)));
    }
  }
}

void validate_containers(const json& containers, const std::string& path, bool required,
                         const std::set<std::string>& volumes, std::set<std::string>& names,
                         Errors& out) {
  if (!containers.is_array() || containers.empty()) {
    if (required) {
      out.push_back(required_value(path, ""));
    }
    return;
  }
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& c = containers[i];
    const std::string p = index(path, i);
    const std::string name = str(c, "name");
    if (name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    } else {
      for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    if (str(c, "image").empty()) {
      out.push_back(required_value(p + ".image", ""));
    }
    validate_container_ports(get(c, "ports"), p + ".ports", out);
    const json& mounts = get(c, "volumeMounts");
    if (mounts.is_array()) {
      std::set<std::string> mount_paths;
      for (size_t j = 0; j < mounts.size(); ++j) {
        const std::string mp = index(p + ".volumeMounts", j);
        const std::string mount_name = str(mounts[j], "name");
        if (mount_name.empty()) {
          out.push_back(required_value(mp + ".name", ""));
        } else if (!volumes.count(mount_name)) {
          out.push_back(not_found(mp + ".name", go_quote(mount_name)));
        }
        const std::string mount_path = str(mounts[j], "mountPath");
        if (mount_path.empty()) {
          out.push_back(required_value(mp + ".mountPath", ""));
        } else if (!mount_paths.insert(mount_path).second) {
          out.push_back(invalid_value(mp + ".mountPath", mount_path, "must be unique"));
        }
      }
    }
    validate_resources(get(c, "resources"), p + ".resources", out);
  }
}

void validate_restart_policy(const json& spec, const std::string& path, Errors& out) {
  const std::string policy = str(spec, "restartPolicy");
  if (policy.empty()) {
    out.push_back(required_value(path, ""));
  } else if (policy != "Always" && policy != "OnFailure" && policy != "Never") {
    out.push_back(not_supported(path, go_quote(policy), {"Always", "OnFailure", "Never"}));
  }
}

void validate_pod_spec(const json& spec, const std::string& path, Errors& out) {
  std::set<std::string> volumes;
  const json& vols = get(spec, "volumes");
  if (vols.is_array()) {
    for (size_t i = 0; i < vols.size(); ++i) {
      const std::string p = index(path + ".volumes", i);
      const std::string name = str(vols[i], "name");
      if (name.empty()) {
        out.push_back(required_value(p + ".name", ""));
      } else {
        for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
          out.push_back(invalid_value(p + ".name", name, msg));
        }
        if (!volumes.insert(name).second) {
          out.push_back(duplicate(p + ".name", go_quote(name)));
        }
      }
      if (vols[i].is_object() && vols[i].size() == (vols[i].contains("name") ? 1u : 0u)) {
        out.push_back(required_value(p, "must specify a volume type"));
      }
    }
  }
  std::set<std::string> names;
  validate_containers(get(spec, "initContainers"), path + ".initContainers", false, volumes,
                      names, out);
  validate_containers(get(spec, "containers"), path + ".containers", true, volumes, names, out);
  validate_restart_policy(spec, path + ".restartPolicy", out);
  const json& deadline = get(spec, "activeDeadlineSeconds");
  if (deadline.is_number_integer() && deadline.get<int64_t>() <= 0) {
    // Text unverified for 1.32.
    out.push_back(invalid_rendered(path + ".activeDeadlineSeconds", deadline.dump(),
                                   "must be between 1 and 2147483647, inclusive"));
  }
}

// A pod template: its metadata labels/annotations and its pod spec.
void validate_pod_template(const json& tmpl, const std::string& path, Errors& out) {
  const json& meta = get(tmpl, "metadata");
  validate_labels(get(meta, "labels"), path + ".metadata.labels", out);
  validate_annotations(get(meta, "annotations"), path + ".metadata.annotations", out);
  validate_pod_spec(get(tmpl, "spec"), path + ".spec", out);
}

// ---------------------------------------------------------------------------------------------
// Core kinds

void validate_pod(const json& obj, Errors& out) { validate_pod_spec(get(obj, "spec"), "spec", out); }

void validate_pod_update(const json& obj, const json& old, Errors& out) {
  // Blank out what a pod update may change, then require the rest to be equal.
  json now = get(obj, "spec");
  json before = get(old, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    if (now.contains(list) && before.contains(list) && now[list].is_array() &&
        before[list].is_array() && now[list].size() == before[list].size()) {
      for (size_t i = 0; i < now[list].size(); ++i) {
        if (now[list][i].is_object() && before[list][i].is_object()) {
          before[list][i]["image"] = now[list][i].value("image", json());
        }
      }
    }
  }
  if (now.contains("activeDeadlineSeconds")) {
    before["activeDeadlineSeconds"] = now["activeDeadlineSeconds"];
  }
  const json& old_tolerations = get(before, "tolerations");
  const json& new_tolerations = get(now, "tolerations");
  if (new_tolerations.is_array()) {
    bool additions_only = true;
    if (old_tolerations.is_array()) {
      for (const auto& t : old_tolerations) {
        additions_only = additions_only && std::find(new_tolerations.begin(),
                                                     new_tolerations.end(),
                                                     t) != new_tolerations.end();
      }
    }
    if (additions_only) {
      before["tolerations"] = new_tolerations;
    }
  }
  const json& old_grace = get(before, "terminationGracePeriodSeconds");
  if (old_grace.is_number_integer() && old_grace.get<int64_t>() < 0 &&
      get(now, "terminationGracePeriodSeconds") == json(1)) {
    before["terminationGracePeriodSeconds"] = 1;
  }
  if (now != before) {
    // Upstream appends "\n" and a cmp.Diff of the internal PodSpec; not reproduced.
    out.push_back(forbidden(
        "spec",
        "pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
        "set to 1 if it was previously negative)"));
  }
}

size_t base64_decoded_size(const json& v) {
  if (!v.is_string()) {
    return 0;
  }
  const std::string& s = v.get_ref<const std::string&>();
  size_t padding = 0;
  for (auto it = s.rbegin(); it != s.rend() && *it == '='; ++it) {
    ++padding;
  }
  return s.size() / 4 * 3 - std::min(padding, s.size() / 4 * 3);
}

constexpr size_t kMaxDataSize = 1024 * 1024;

void validate_config_map(const json& obj, Errors& out) {
  size_t total = 0;
  const json& data = get(obj, "data");
  const json& binary = get(obj, "binaryData");
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("data", it.key()), it.key(), msg));
      }
      total += it->is_string() ? it->get_ref<const std::string&>().size() : 0;
    }
  }
  if (binary.is_object()) {
    for (auto it = binary.begin(); it != binary.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("binaryData", it.key()), it.key(), msg));
      }
      if (data.is_object() && data.contains(it.key())) {
        out.push_back(invalid_value(key_of("binaryData", it.key()), it.key(),
                                    "duplicate of key present in data"));
      }
      total += base64_decoded_size(*it);
    }
  }
  if (total > kMaxDataSize) {
    // Upstream's path is the empty root path (text unverified).
    out.push_back(too_long("", kMaxDataSize));
  }
}

void validate_immutable_data(const json& obj, const json& old, std::initializer_list<const char*> keys,
                             Errors& out) {
  const json& was_immutable = get(old, "immutable");
  if (!(was_immutable.is_boolean() && was_immutable.get<bool>())) {
    return;
  }
  const json& now_immutable = get(obj, "immutable");
  if (!(now_immutable.is_boolean() && now_immutable.get<bool>())) {
    out.push_back(forbidden("immutable", "field is immutable when `immutable` is set"));
  }
  for (const char* key : keys) {
    if (get(obj, key) != get(old, key)) {
      out.push_back(forbidden(key, "field is immutable when `immutable` is set"));
    }
  }
}

void validate_secret(const json& obj, Errors& out) {
  const json& data = get(obj, "data");
  size_t total = 0;
  if (data.is_object()) {
    for (auto it = data.begin(); it != data.end(); ++it) {
      for (const auto& msg : config_map_key_problems(it.key())) {
        out.push_back(invalid_value(key_of("data", it.key()), it.key(), msg));
      }
      total += base64_decoded_size(*it);
    }
  }
  if (total > kMaxDataSize) {
    out.push_back(too_long("data", kMaxDataSize));
  }
  auto has_key = [&](const char* key) { return data.is_object() && data.contains(key); };
  const std::string type = str(obj, "type");
  if (type == "kubernetes.io/service-account-token") {
    if (str(get(get(obj, "metadata"), "annotations"), "kubernetes.io/service-account.name")
            .empty()) {
      out.push_back(required_value(
          "metadata.annotations[kubernetes.io/service-account.name]", ""));
    }
  } else if (type == "kubernetes.io/dockercfg" || type == "kubernetes.io/dockerconfigjson") {
    const char* key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
    if (!has_key(key)) {
      out.push_back(required_value(key_of("data", key), ""));
    } else {
      // Go's encoding/json error text is approximated (text unverified).
      std::string decoded;
      const std::string encoded = data[key].is_string() ? data[key].get<std::string>() : "";
      static const std::string kAlphabet =
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      int bits = 0;
      unsigned value = 0;
      for (char c : encoded) {
        const size_t pos = kAlphabet.find(c);
        if (pos == std::string::npos) {
          break;
        }
        value = (value << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
          bits -= 8;
          decoded.push_back(static_cast<char>((value >> bits) & 0xff));
        }
      }
      if (!json::accept(decoded)) {
        out.push_back(invalid_value(key_of("data", key), "<secret contents redacted>",
                                    decoded.empty() ? "unexpected end of JSON input"
                                                    : "invalid character looking for beginning "
                                                      "of value"));
      }
    }
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has_key("username") && !has_key("password")) {
      out.push_back(required_value("data[username]", ""));
      out.push_back(required_value("data[password]", ""));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (base64_decoded_size(get(data, "ssh-privatekey")) == 0) {
      out.push_back(required_value("data[ssh-privatekey]", ""));
    }
  } else if (type == "kubernetes.io/tls") {
    if (!has_key("tls.crt")) {
      out.push_back(required_value("data[tls.crt]", ""));
    }
    if (!has_key("tls.key")) {
      out.push_back(required_value("data[tls.key]", ""));
    }
  }
}

void validate_secret_update(const json& obj, const json& old, Errors& out) {
  if (str(obj, "type") != str(old, "type")) {
    out.push_back(invalid_value("type", str(obj, "type"), kImmutable));
  }
  validate_immutable_data(obj, old, {"data"}, out);
}

const std::vector<std::string> kServiceTypes = {"ClusterIP", "ExternalName", "LoadBalancer",
                                                "NodePort"};

void validate_service(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const std::string type = str(spec, "type").empty() ? "ClusterIP" : str(spec, "type");
  const bool headless = str(spec, "clusterIP") == "None";
  const json& ports = get(spec, "ports");
  const size_t n = ports.is_array() ? ports.size() : 0;
  if (n == 0 && !headless && type != "ExternalName") {
    out.push_back(required_value("spec.ports", ""));
  }
  if (std::find(kServiceTypes.begin(), kServiceTypes.end(), type) == kServiceTypes.end()) {
    out.push_back(not_supported("spec.type", go_quote(type), kServiceTypes));
  }
  if (type == "ExternalName") {
    std::string external = str(spec, "externalName");
    if (!external.empty() && external.back() == '.') {
      external.pop_back();
    }
    if (external.empty()) {
      out.push_back(required_value("spec.externalName", ""));
    } else {
      for (const auto& msg : name_problems(external, NameRule::Dns1123Subdomain, false)) {
        out.push_back(invalid_value("spec.externalName", external, msg));
      }
    }
  }
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const json& port = ports[i];
    const std::string p = index("spec.ports", i);
    const std::string name = str(port, "name");
    if (n > 1 && name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    } else if (!name.empty()) {
      for (const auto& msg : name_problems(name, NameRule::Dns1123Label, false)) {
        out.push_back(invalid_value(p + ".name", name, msg));
      }
      if (!names.insert(name).second) {
        out.push_back(duplicate(p + ".name", go_quote(name)));
      }
    }
    validate_port_number(get(port, "port"), p + ".port", out);
    validate_protocol(port, p + ".protocol", out);
    const json& target = get(port, "targetPort");
    if (target.is_number_integer()) {
      validate_port_number(target, p + ".targetPort", out);
    } else if (target.is_string()) {
      for (const auto& msg : port_name_problems(target.get<std::string>())) {
        out.push_back(invalid_value(p + ".targetPort", target.get<std::string>(), msg));
      }
    }
    const json& node_port = get(port, "nodePort");
    if (type == "ClusterIP" && node_port.is_number_integer() && node_port.get<int64_t>() != 0) {
      out.push_back(forbidden(p + ".nodePort", "may not be used when `type` is 'ClusterIP'"));
    }
  }
  validate_labels(get(spec, "selector"), "spec.selector", out);
}

std::vector<std::string> cluster_ips(const json& spec) {
  std::vector<std::string> ips;
  const json& list = get(spec, "clusterIPs");
  if (list.is_array()) {
    for (const auto& ip : list) {
      ips.push_back(ip.is_string() ? ip.get<std::string>() : std::string());
    }
  } else if (!str(spec, "clusterIP").empty()) {
    ips.push_back(str(spec, "clusterIP"));
  }
  return ips;
}

void validate_service_update(const json& obj, const json& old, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (str(spec, "type") == "ExternalName" || str(old_spec, "type") == "ExternalName") {
    return;
  }
  const auto now = cluster_ips(spec);
  const auto before = cluster_ips(old_spec);
  // An empty clusterIP on update is filled from the stored object before validation.
  if (!now.empty() && !before.empty() && now[0] != before[0]) {
    std::string rendered = "[]string{";
    for (size_t i = 0; i < now.size(); ++i) {
      rendered += (i ? ", " : "") + go_quote(now[i]);
    }
    out.push_back(
        invalid_rendered("spec.clusterIPs[0]", rendered + "}", "may not change once set"));
  }
}

void validate_pvc(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& modes = get(spec, "accessModes");
  if (!modes.is_array() || modes.empty()) {
    out.push_back(required_value("spec.accessModes", "at least 1 access mode is required"));
  } else {
    static const std::vector<std::string> kModes = {"ReadOnlyMany", "ReadWriteMany",
                                                    "ReadWriteOnce", "ReadWriteOncePod"};
    for (const auto& m : modes) {
      const std::string mode = m.is_string() ? m.get<std::string>() : std::string();
      if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end()) {
        out.push_back(not_supported("spec.accessModes", go_quote(mode), kModes));
      }
    }
  }
  const json& storage = get(get(get(spec, "resources"), "requests"), "storage");
  if (storage.is_null()) {
    out.push_back(required_value("spec.resources[storage]", ""));
  } else if (auto v = go_quantity_value(storage); v && *v <= 0) {
    out.push_back(
        invalid_value("spec.resources[storage]", quantity_text(storage), "must be greater than zero"));
  }
}

void validate_pvc_update(const json& obj, const json& old, Errors& out) {
  json now = get(obj, "spec");
  json before = get(old, "spec");
  const json new_storage = get(get(get(now, "resources"), "requests"), "storage");
  const json old_storage = get(get(get(before, "resources"), "requests"), "storage");
  if (now.is_object() && before.is_object()) {
    if (now.contains("resources") && now["resources"].is_object()) {
      json& resources = before["resources"];
      if (!resources.is_object()) {
        resources = json::object();
      }
      resources["requests"] = now["resources"].value("requests", json());
    }
    // The claim's binding (volumeName) is set by the controller, which the check tolerates.
    if (str(before, "volumeName").empty() && now.contains("volumeName")) {
      before["volumeName"] = now["volumeName"];
    }
  }
  if (now != before) {
    // Upstream appends "\n" and a cmp.Diff of the internal spec; not reproduced. With the
    // VolumeAttributesClass gate on (off by default in 1.32) the text also names
    // volumeAttributesClassName (text unverified for 1.32).
    out.push_back(
        forbidden("spec", "spec is immutable after creation except resources.requests for bound "
                          "claims"));
  }
  const auto a = go_quantity_value(new_storage);
  const auto b = go_quantity_value(old_storage);
  if (a && b && *a < *b) {
    out.push_back(forbidden("spec.resources.requests.storage",
                            "field can not be less than previous value"));
  }
}

void validate_event(const json& obj, Errors& out) {
  // core/v1 Events take the legacy rules only (no object metadata checks).
  const std::string ns = str(get(obj, "metadata"), "namespace");
  const std::string involved = str(get(obj, "involvedObject"), "namespace");
  const bool has_event_time = present(obj, "eventTime");
  bool mismatch = false;
  if (!has_event_time) {
    mismatch = involved.empty() ? (!ns.empty() && ns != "default") : ns != involved;
  } else {
    mismatch = involved.empty() && ns != "default" && ns != "kube-system";
  }
  if (mismatch) {
    out.push_back(invalid_value("involvedObject.namespace", involved,
                                "does not match event.namespace"));
  }
  if (has_event_time) {
    if (str(obj, "reportingComponent").empty()) {
      out.push_back(required_value("reportingController", ""));
    }
    if (str(obj, "reportingInstance").empty()) {
      out.push_back(required_value("reportingInstance", ""));
    }
    if (str(obj, "action").empty()) {
      out.push_back(required_value("action", ""));
    }
    if (str(obj, "reason").empty()) {
      out.push_back(required_value("reason", ""));
    }
  }
  for (const auto& msg : name_problems(ns, NameRule::Dns1123Subdomain, false)) {
    out.push_back(invalid_value("namespace", ns, msg));
  }
}

// ---------------------------------------------------------------------------------------------
// apps/v1

void validate_nonnegative(const json& spec, const char* key, const std::string& path,
                          Errors& out) {
  const json& v = get(spec, key);
  if (v.is_number_integer() && v.get<int64_t>() < 0) {
    out.push_back(invalid_rendered(path, v.dump(), kNegative));
  }
}

// An intstr.IntOrString as field.Invalid prints it: String() has a pointer receiver, so the
// value falls back to %#v.
std::string go_int_or_string(const json& v) {
  if (v.is_string()) {
    return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + go_quote(v.get<std::string>()) + "}";
  }
  const std::string n = v.is_number_integer() ? v.dump() : "0";
  return "intstr.IntOrString{Type:0, IntVal:" + n + ", StrVal:\"\"}";
}

// validation.IsValidPercent: [0-9]+%.
bool is_valid_percent(const std::string& s) {
  return s.size() > 1 && s.back() == '%' &&
         std::all_of(s.begin(), s.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
}

// getIntOrPercentValue: a valid percent's number, else IntValue() (Atoi of a string, whose
// failures count as 0 and whose overflow as the nearest int64, as Go's Atoi returns them).
int64_t int_or_percent_value(const json& v) {
  if (v.is_number_integer()) {
    return v.get<int64_t>();
  }
  if (!v.is_string()) {
    return 0;
  }
  const std::string& s = v.get_ref<const std::string&>();
  return go_atoi(is_valid_percent(s) ? std::string_view(s).substr(0, s.size() - 1) : s).value;
}

// ValidatePositiveIntOrPercent.
void validate_int_or_percent(const json& v, const std::string& path, Errors& out) {
  if (v.is_number_integer()) {
    if (v.get<int64_t>() < 0) {
      out.push_back(invalid_rendered(path, v.dump(), kNegative));
    }
    return;
  }
  if (v.is_string() && !is_valid_percent(v.get<std::string>())) {
    out.push_back(invalid_rendered(path, go_int_or_string(v),
                                   "a valid percent string must be a numeric string followed by an "
                                   "ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                                   "'[0-9]+%')"));
  }
}

// IsNotMoreThan100Percent.
void validate_not_over_100_percent(const json& v, const std::string& path, Errors& out) {
  if (v.is_string() && is_valid_percent(v.get<std::string>()) && int_or_percent_value(v) > 100) {
    out.push_back(invalid_rendered(path, go_int_or_string(v), "must not be greater than 100%"));
  }
}

void validate_deployment_strategy(const json& strategy, Errors& out) {
  const std::string type = str(strategy, "type");
  const json& rolling = get(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (!rolling.is_null()) {
      out.push_back(forbidden("spec.strategy.rollingUpdate",
                              "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (rolling.is_null()) {
      out.push_back(required_value("spec.strategy.rollingUpdate",
                                   "this should be defaulted and never be nil"));
    } else {
      const json& unavailable = get(rolling, "maxUnavailable");
      const json& surge = get(rolling, "maxSurge");
      const std::string unavailable_path = "spec.strategy.rollingUpdate.maxUnavailable";
      validate_int_or_percent(unavailable, unavailable_path, out);
      validate_int_or_percent(surge, "spec.strategy.rollingUpdate.maxSurge", out);
      if (int_or_percent_value(unavailable) == 0 && int_or_percent_value(surge) == 0) {
        out.push_back(invalid_rendered(unavailable_path, go_int_or_string(unavailable),
                                       "may not be 0 when `maxSurge` is 0"));
      }
      validate_not_over_100_percent(unavailable, unavailable_path, out);
    }
  } else {
    // Upstream names this path with a capital T (text and path unverified for 1.32).
    out.push_back(not_supported("spec.strategy.Type", go_quote(type),
                                {"Recreate", "RollingUpdate"}));
  }
}

void validate_workload(const std::string& kind, const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& selector = get(spec, "selector");
  const json& tmpl = get(spec, "template");
  const json& tmpl_labels = get(get(tmpl, "metadata"), "labels");
  if (kind == "StatefulSet") {
    const std::string policy = str(spec, "podManagementPolicy");
    if (policy.empty()) {
      out.push_back(required_value("spec.podManagementPolicy", ""));
    } else if (policy != "OrderedReady" && policy != "Parallel") {
      out.push_back(invalid_value("spec.podManagementPolicy", policy,
                                  "must be 'OrderedReady' or 'Parallel'"));
    }
  }
  if (kind != "DaemonSet") {
    validate_nonnegative(spec, "replicas", "spec.replicas", out);
  }
  validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", out);
  const std::string empty_text =
      kind == "StatefulSet" ? "empty selector is not valid for statefulset."
      : kind == "DaemonSet" ? "empty selector is invalid for daemonset"  // text unverified
                            : "empty selector is invalid for deployment";
  if (kind == "DaemonSet") {
    validate_label_selector(selector, "spec.selector", out);
    if (!selector_matches(selector, tmpl_labels)) {
      out.push_back(invalid_rendered("spec.template.metadata.labels", go_string_map(tmpl_labels),
                                     kSelectorMismatch));
    }
    if (selector.is_object() && selector_is_empty(selector)) {
      out.push_back(invalid_rendered("spec.selector", go_label_selector(selector), empty_text));
    }
  } else if (selector.is_null()) {
    out.push_back(required_value("spec.selector", ""));
  } else {
    validate_label_selector(selector, "spec.selector", out);
    if (selector_is_empty(selector)) {
      out.push_back(invalid_rendered("spec.selector", go_label_selector(selector), empty_text));
    } else if (!selector_matches(selector, tmpl_labels)) {
      out.push_back(invalid_rendered("spec.template.metadata.labels", go_string_map(tmpl_labels),
                                     kSelectorMismatch));
    }
  }
  validate_pod_template(tmpl, "spec.template", out);
  const std::string restart = str(get(tmpl, "spec"), "restartPolicy");
  if (restart != "Always") {
    out.push_back(
        not_supported("spec.template.spec.restartPolicy", go_quote(restart), {"Always"}));
  }
  if (kind == "Deployment") {
    validate_deployment_strategy(get(spec, "strategy"), out);
    validate_nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", out);
  }
}

void validate_workload_update(const std::string& kind, const json& obj, const json& old,
                              Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (get(spec, "selector") != get(old_spec, "selector")) {
    out.push_back(
        invalid_rendered("spec.selector", go_label_selector(get(spec, "selector")), kImmutable));
  }
  if (kind == "StatefulSet") {
    json now = spec;
    json before = old_spec;
    for (const char* key : {"replicas", "ordinals", "template", "updateStrategy",
                            "persistentVolumeClaimRetentionPolicy", "minReadySeconds"}) {
      if (now.is_object()) {
        now.erase(key);
      }
      if (before.is_object()) {
        before.erase(key);
      }
    }
    if (now != before) {
      out.push_back(forbidden(
          "spec",
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
          "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
          "'minReadySeconds' are forbidden"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// batch/v1

void validate_job_spec(const json& spec, const std::string& path, Errors& out) {
  validate_nonnegative(spec, "parallelism", path + ".parallelism", out);
  validate_nonnegative(spec, "completions", path + ".completions", out);
  validate_nonnegative(spec, "backoffLimit", path + ".backoffLimit", out);
  const json& selector = get(spec, "selector");
  const json& tmpl = get(spec, "template");
  // The server generates the selector (and matching template labels) unless manualSelector is
  // set, so an absent selector is only reported for manual selectors.
  const json& manual = get(spec, "manualSelector");
  if (selector.is_null()) {
    if (manual.is_boolean() && manual.get<bool>()) {
      out.push_back(required_value(path + ".selector", ""));
    }
  } else {
    validate_label_selector(selector, path + ".selector", out);
    const json& labels = get(get(tmpl, "metadata"), "labels");
    if (!selector_is_empty(selector) && !selector_matches(selector, labels)) {
      out.push_back(invalid_rendered(path + ".template.metadata.labels", go_string_map(labels),
                                     kSelectorMismatch));
    }
  }
  validate_pod_template(tmpl, path + ".template", out);
  const std::string restart = str(get(tmpl, "spec"), "restartPolicy");
  if (restart != "OnFailure" && restart != "Never") {
    out.push_back(not_supported(path + ".template.spec.restartPolicy", go_quote(restart),
                                {"OnFailure", "Never"}));
  }
}

void validate_job_update(const json& obj, const json& old, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& old_spec = get(old, "spec");
  if (!get(old_spec, "selector").is_null() && get(spec, "selector") != get(old_spec, "selector")) {
    out.push_back(
        invalid_rendered("spec.selector", go_label_selector(get(spec, "selector")), kImmutable));
  }
  const json& completions = get(spec, "completions");
  if (completions != get(old_spec, "completions")) {
    // Elastic indexed jobs may scale completions together with parallelism.
    const bool elastic = str(spec, "completionMode") == "Indexed" &&
                         completions == get(spec, "parallelism") &&
                         get(old_spec, "completions") == get(old_spec, "parallelism");
    if (!elastic) {
      out.push_back(invalid_rendered("spec.completions",
                                     completions.is_null() ? "null" : completions.dump(),
                                     kImmutable));
    }
  }
  const json& suspended = get(spec, "suspend");
  const bool suspend = suspended.is_boolean() && suspended.get<bool>();
  if (!suspend && get(spec, "template") != get(old_spec, "template")) {
    // Upstream prints the whole internal PodTemplateSpec with %#v; abbreviated here.
    out.push_back(invalid_rendered("spec.template", "core.PodTemplateSpec{...}", kImmutable));
  }
}

void validate_cron_job(const json& obj, Errors& out) {
  const std::string name = str(get(obj, "metadata"), "name");
  if (name.size() > 52) {
    out.push_back(invalid_value("metadata.name", name, "must be no more than 52 characters"));
  }
  const json& spec = get(obj, "spec");
  const std::string schedule = str(spec, "schedule");
  if (schedule.empty()) {
    out.push_back(required_value("spec.schedule", ""));
  } else {
    if (auto e = cron_schedule_error(schedule); !e.empty()) {
      out.push_back(invalid_value("spec.schedule", schedule, e));
    }
    if (schedule.find("TZ") != std::string::npos) {
      out.push_back(invalid_value("spec.schedule", schedule,
                                  "cannot use TZ or CRON_TZ in schedule, use timeZone field "
                                  "instead"));
    }
  }
  const std::string policy = str(spec, "concurrencyPolicy");
  if (policy.empty()) {
    out.push_back(required_value("spec.concurrencyPolicy", ""));
  } else if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    out.push_back(not_supported("spec.concurrencyPolicy", go_quote(policy),
                                {"Allow", "Forbid", "Replace"}));
  }
  validate_job_spec(get(get(spec, "jobTemplate"), "spec"), "spec.jobTemplate.spec", out);
}

// ---------------------------------------------------------------------------------------------
// rbac.authorization.k8s.io/v1

void validate_rules(const json& rules, bool namespaced, Errors& out) {
  if (!rules.is_array()) {
    return;
  }
  auto size_of = [](const json& rule, const char* key) {
    const json& v = get(rule, key);
    return v.is_array() ? v.size() : 0;
  };
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string p = index("rules", i);
    if (size_of(rule, "verbs") == 0) {
      out.push_back(required_value(p + ".verbs", "verbs must contain at least one value"));
    }
    if (size_of(rule, "nonResourceURLs") > 0) {
      std::string urls = "[]string{";
      for (size_t k = 0; k < get(rule, "nonResourceURLs").size(); ++k) {
        urls += (k ? ", " : "") + render_scalar(get(rule, "nonResourceURLs")[k]);
      }
      urls += "}";
      if (namespaced) {
        out.push_back(invalid_rendered(p + ".nonResourceURLs", urls,
                                       "namespaced rules cannot apply to non-resource URLs"));
      }
      if (size_of(rule, "apiGroups") || size_of(rule, "resources") ||
          size_of(rule, "resourceNames")) {
        out.push_back(invalid_rendered(
            p + ".nonResourceURLs", urls,
            "rules cannot apply to both regular resources and non-resource URLs"));
      }
      continue;
    }
    if (size_of(rule, "apiGroups") == 0) {
      out.push_back(required_value(p + ".apiGroups",
                                   "resource rules must supply at least one api group"));
    }
    if (size_of(rule, "resources") == 0) {
      out.push_back(
          required_value(p + ".resources", "resource rules must supply at least one resource"));
    }
  }
}

const char* kRbacGroup = "rbac.authorization.k8s.io";

void validate_binding(const json& obj, bool namespaced, Errors& out) {
  const json& ref = get(obj, "roleRef");
  const std::string group = str(ref, "apiGroup");
  if (group != kRbacGroup) {
    out.push_back(not_supported("roleRef.apiGroup", go_quote(group), {kRbacGroup}));
  }
  const std::string kind = str(ref, "kind");
  if (namespaced ? (kind != "Role" && kind != "ClusterRole") : kind != "ClusterRole") {
    out.push_back(not_supported("roleRef.kind", go_quote(kind),
                                namespaced ? std::vector<std::string>{"Role", "ClusterRole"}
                                           : std::vector<std::string>{"ClusterRole"}));
  }
  const std::string name = str(ref, "name");
  if (name.empty()) {
    out.push_back(required_value("roleRef.name", ""));
  } else {
    for (const auto& msg : name_problems(name, NameRule::PathSegment, false)) {
      out.push_back(invalid_value("roleRef.name", name, msg));
    }
  }
  const json& subjects = get(obj, "subjects");
  if (!subjects.is_array()) {
    return;
  }
  for (size_t i = 0; i < subjects.size(); ++i) {
    const json& s = subjects[i];
    const std::string p = index("subjects", i);
    const std::string subject_name = str(s, "name");
    const std::string subject_group = str(s, "apiGroup");
    const std::string subject_kind = str(s, "kind");
    if (subject_name.empty()) {
      out.push_back(required_value(p + ".name", ""));
    }
    if (subject_kind == "ServiceAccount") {
      if (!subject_name.empty()) {
        for (const auto& msg : name_problems(subject_name, NameRule::Dns1123Subdomain, false)) {
          out.push_back(invalid_value(p + ".name", subject_name, msg));
        }
      }
      if (!subject_group.empty()) {
        out.push_back(not_supported(p + ".apiGroup", go_quote(subject_group), {""}));
      }
      if (!namespaced && str(s, "namespace").empty()) {
        out.push_back(required_value(p + ".namespace", ""));
      }
    } else if (subject_kind == "User" || subject_kind == "Group") {
      if (subject_name.empty()) {
        out.push_back(invalid_value(p + ".name", subject_name,
                                    subject_kind == "User" ? "user name cannot be empty"
                                                           : "group name cannot be empty"));
      }
      if (subject_group != kRbacGroup) {
        out.push_back(not_supported(p + ".apiGroup", go_quote(subject_group), {kRbacGroup}));
      }
    } else {
      out.push_back(not_supported(p + ".kind", go_quote(subject_kind),
                                  {"ServiceAccount", "User", "Group"}));
    }
  }
}

void validate_binding_update(const json& obj, const json& old, Errors& out) {
  const json& ref = get(obj, "roleRef");
  if (ref != get(old, "roleRef")) {
    out.push_back(invalid_rendered(
        "roleRef",
        "rbac.RoleRef{APIGroup:" + go_quote(str(ref, "apiGroup")) +
            ", Kind:" + go_quote(str(ref, "kind")) + ", Name:" + go_quote(str(ref, "name")) + "}",
        "cannot change roleRef"));
  }
}

// ---------------------------------------------------------------------------------------------
// networking.k8s.io/v1

void validate_ingress_backend(const json& backend, const std::string& path, Errors& out) {
  const bool has_resource = !get(backend, "resource").is_null();
  const json& service = get(backend, "service");
  if (has_resource && !service.is_null()) {
    out.push_back(invalid_value(path, "", "cannot set both resource and service backends"));
    return;
  }
  if (has_resource) {
    return;
  }
  if (service.is_null()) {
    out.push_back(invalid_value(path, "", "resource or service backend is required"));
    return;
  }
  const std::string name = str(service, "name");
  if (name.empty()) {
    out.push_back(required_value(path + ".service.name", ""));
  } else {
    for (const auto& msg : name_problems(name, NameRule::Dns1035Label, false)) {
      out.push_back(invalid_value(path + ".service.name", name, msg));
    }
  }
  const json& port = get(service, "port");
  const std::string port_name = str(port, "name");
  const json& number = get(port, "number");
  const bool has_number = number.is_number_integer() && number.get<int64_t>() != 0;
  if (!port_name.empty() && has_number) {
    out.push_back(invalid_value(path, "", "cannot set both port name & port number"));
  } else if (!port_name.empty()) {
    for (const auto& msg : port_name_problems(port_name)) {
      out.push_back(invalid_value(path + ".service.port.name", port_name, msg));
    }
  } else if (has_number) {
    validate_port_number(number, path + ".service.port.number", out);
  } else {
    out.push_back(required_value(path, "port name or number is required"));
  }
}

void validate_ingress(const json& obj, Errors& out) {
  const json& spec = get(obj, "spec");
  const json& rules = get(spec, "rules");
  const json& fallback = get(spec, "defaultBackend");
  const size_t n = rules.is_array() ? rules.size() : 0;
  if (n == 0 && fallback.is_null()) {
    out.push_back(invalid_rendered("spec",
                                   rules.is_array() ? "[]networking.IngressRule{}"
                                                    : "[]networking.IngressRule(nil)",
                                   "either `defaultBackend` or `rules` must be specified"));
  }
  if (!fallback.is_null()) {
    validate_ingress_backend(fallback, "spec.defaultBackend", out);
  }
  static const std::vector<std::string> kPathTypes = {"Exact", "ImplementationSpecific",
                                                      "Prefix"};
  for (size_t i = 0; i < n; ++i) {
    const std::string rp = index("spec.rules", i);
    const std::string host = str(rules[i], "host");
    if (!host.empty() && host.find('*') == std::string::npos) {
      for (const auto& msg : name_problems(host, NameRule::Dns1123Subdomain, false)) {
        out.push_back(invalid_value(rp + ".host", host, msg));
      }
    }
    const json& http = get(rules[i], "http");
    if (http.is_null()) {
      continue;
    }
    const json& paths = get(http, "paths");
    if (!paths.is_array() || paths.empty()) {
      out.push_back(required_value(rp + ".http.paths", ""));
      continue;
    }
    for (size_t k = 0; k < paths.size(); ++k) {
      const std::string pp = index(rp + ".http.paths", k);
      const json& type = get(paths[k], "pathType");
      if (!type.is_string()) {
        out.push_back(required_value(pp + ".pathType", "pathType must be specified"));
        continue;
      }
      const std::string path_type = type.get<std::string>();
      const std::string path = str(paths[k], "path");
      if (path_type == "Exact" || path_type == "Prefix") {
        if (path.empty() || path[0] != '/') {
          out.push_back(invalid_value(pp + ".path", path, "must be an absolute path"));
        }
      } else if (path_type == "ImplementationSpecific") {
        if (!path.empty() && path[0] != '/') {
          out.push_back(invalid_value(pp + ".path", path, "must be an absolute path"));
        }
      } else {
        out.push_back(not_supported(pp + ".pathType", go_quote(path_type), kPathTypes));
      }
      validate_ingress_backend(get(paths[k], "backend"), pp + ".backend", out);
    }
  }
  const json& class_name = get(spec, "ingressClassName");
  if (class_name.is_string()) {
    for (const auto& msg :
         name_problems(class_name.get<std::string>(), NameRule::Dns1123Subdomain, false)) {
      out.push_back(invalid_value("spec.ingressClassName", class_name.get<std::string>(), msg));
    }
  }
}

// ---------------------------------------------------------------------------------------------

std::string kind_key(const Resource& r) { return r.group + "/" + r.kind; }

void validate_kind(const Resource& r, const json& obj, Errors& out) {
  const std::string k = kind_key(r);
  if (k == "/Pod") {
    validate_pod(obj, out);
  } else if (k == "/ConfigMap") {
    validate_config_map(obj, out);
  } else if (k == "/Secret") {
    validate_secret(obj, out);
  } else if (k == "/Service") {
    validate_service(obj, out);
  } else if (k == "/PersistentVolumeClaim") {
    validate_pvc(obj, out);
  } else if (k == "apps/Deployment" || k == "apps/ReplicaSet" || k == "apps/StatefulSet" ||
             k == "apps/DaemonSet") {
    validate_workload(r.kind, obj, out);
  } else if (k == "batch/Job") {
    validate_job_spec(get(obj, "spec"), "spec", out);
  } else if (k == "batch/CronJob") {
    validate_cron_job(obj, out);
  } else if (k == "rbac.authorization.k8s.io/Role") {
    validate_rules(get(obj, "rules"), true, out);
  } else if (k == "rbac.authorization.k8s.io/ClusterRole") {
    validate_rules(get(obj, "rules"), false, out);
  } else if (k == "rbac.authorization.k8s.io/RoleBinding") {
    validate_binding(obj, true, out);
  } else if (k == "rbac.authorization.k8s.io/ClusterRoleBinding") {
    validate_binding(obj, false, out);
  } else if (k == "networking.k8s.io/Ingress") {
    validate_ingress(obj, out);
  }
}

}  // namespace

std::vector<FieldError> validate_create(const Resource& resource, const json& object) {
  Errors out;
  if (resource.group.empty() && resource.kind == "Event") {
    validate_event(object, out);
    return out;
  }
  validate_object_meta(resource, get(object, "metadata"), out);
  validate_kind(resource, object, out);
  return out;
}

std::vector<FieldError> validate_update(const Resource& resource, const json& object,
                                        const json& old) {
  Errors out;
  if (resource.group.empty() && resource.kind == "Event") {
    validate_event(object, out);
    return out;
  }
  validate_object_meta_update(get(object, "metadata"), get(old, "metadata"), out);
  validate_object_meta(resource, get(object, "metadata"), out);
  validate_kind(resource, object, out);
  const std::string k = kind_key(resource);
  if (k == "/Pod") {
    validate_pod_update(object, old, out);
  } else if (k == "/Secret") {
    validate_secret_update(object, old, out);
  } else if (k == "/ConfigMap") {
    validate_immutable_data(object, old, {"data", "binaryData"}, out);
  } else if (k == "/Service") {
    validate_service_update(object, old, out);
  } else if (k == "/PersistentVolumeClaim") {
    validate_pvc_update(object, old, out);
  } else if (k == "apps/Deployment" || k == "apps/ReplicaSet" || k == "apps/StatefulSet" ||
             k == "apps/DaemonSet") {
    validate_workload_update(resource.kind, object, old, out);
  } else if (k == "batch/Job") {
    validate_job_update(object, old, out);
  } else if (k == "rbac.authorization.k8s.io/RoleBinding" ||
             k == "rbac.authorization.k8s.io/ClusterRoleBinding") {
    validate_binding_update(object, old, out);
  }
  return out;
}

}  // namespace apiserver::registry
