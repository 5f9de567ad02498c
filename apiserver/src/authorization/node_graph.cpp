#include "authorization/node_graph.h"

#include "registry/json_access.h"

namespace apiserver::authorization {
namespace {

using nlohmann::json;

const char* const kPods = "/registry/pods/";
const char* const kVolumes = "/registry/persistentvolumes/";
const char* const kAttachments = "/registry/volumeattachments/";

const json& list(const json& object, const char* key) {
  static const json kEmpty = json::array();
  const json& v = registry::value_at(object, {key});
  return v.is_array() ? v : kEmpty;
}

void add(std::vector<std::pair<NodeObject, std::string>>& out, NodeObject kind,
         const std::string& name) {
  if (!name.empty()) {
    out.emplace_back(kind, name);
  }
}

void container_references(const json& containers,
                          std::vector<std::pair<NodeObject, std::string>>& out) {
  if (!containers.is_array()) {
    return;
  }
  for (const auto& c : containers) {
    for (const auto& from : list(c, "envFrom")) {
      add(out, NodeObject::Secret,
          registry::string_at(registry::value_at(from, {"secretRef"}), {"name"}));
      add(out, NodeObject::ConfigMap,
          registry::string_at(registry::value_at(from, {"configMapRef"}), {"name"}));
    }
    for (const auto& env : list(c, "env")) {
      const json& value_from = registry::value_at(env, {"valueFrom"});
      add(out, NodeObject::Secret,
          registry::string_at(registry::value_at(value_from, {"secretKeyRef"}), {"name"}));
      add(out, NodeObject::ConfigMap,
          registry::string_at(registry::value_at(value_from, {"configMapKeyRef"}), {"name"}));
    }
  }
}

// The secrets a persistent volume names that the kubelet reads (VisitPVSecretNames with
// kubeletVisible), each in its own namespace or else the claim's.
std::vector<std::pair<std::string, std::string>> volume_secrets(const json& spec,
                                                                const std::string& claim_ns) {
  std::vector<std::pair<std::string, std::string>> out;
  auto ref = [&](const json& r) {
    const std::string name = registry::string_at(r, {"name"});
    if (!name.empty()) {
      const std::string ns = registry::string_at(r, {"namespace"});
      out.emplace_back(ns.empty() ? claim_ns : ns, name);
    }
  };
  const json& csi = registry::value_at(spec, {"csi"});
  for (const char* key : {"nodePublishSecretRef", "nodeStageSecretRef", "nodeExpandSecretRef"}) {
    ref(registry::value_at(csi, {key}));
  }
  for (const char* source : {"cephfs", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos"}) {
    ref(registry::value_at(registry::value_at(spec, {source}), {"secretRef"}));
  }
  const json& azure = registry::value_at(spec, {"azureFile"});
  if (const std::string name = registry::string_at(azure, {"secretName"}); !name.empty()) {
    const std::string ns = registry::string_at(azure, {"secretNamespace"});
    out.emplace_back(ns.empty() ? "default" : ns, name);
  }
  return out;
}

}  // namespace

std::vector<std::pair<NodeObject, std::string>> pod_references(const json& pod) {
  std::vector<std::pair<NodeObject, std::string>> out;
  const json& spec = registry::value_at(pod, {"spec"});
  add(out, NodeObject::ServiceAccount, registry::string_at(spec, {"serviceAccountName"}));
  for (const auto& s : list(spec, "imagePullSecrets")) {
    add(out, NodeObject::Secret, registry::string_at(s, {"name"}));
  }
  for (const char* containers : {"containers", "initContainers", "ephemeralContainers"}) {
    container_references(registry::value_at(spec, {containers}), out);
  }
  const std::string pod_name = registry::string_at(registry::value_at(pod, {"metadata"}), {"name"});
  for (const auto& v : list(spec, "volumes")) {
    add(out, NodeObject::Secret,
        registry::string_at(registry::value_at(v, {"secret"}), {"secretName"}));
    add(out, NodeObject::Secret,
        registry::string_at(registry::value_at(v, {"azureFile"}), {"secretName"}));
    for (const char* source :
         {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"}) {
      add(out, NodeObject::Secret,
          registry::string_at(registry::value_at(registry::value_at(v, {source}), {"secretRef"}),
                              {"name"}));
    }
    add(out, NodeObject::Secret,
        registry::string_at(
            registry::value_at(registry::value_at(v, {"csi"}), {"nodePublishSecretRef"}),
            {"name"}));
    add(out, NodeObject::ConfigMap,
        registry::string_at(registry::value_at(v, {"configMap"}), {"name"}));
    for (const auto& s : list(registry::value_at(v, {"projected"}), "sources")) {
      add(out, NodeObject::Secret,
          registry::string_at(registry::value_at(s, {"secret"}), {"name"}));
      add(out, NodeObject::ConfigMap,
          registry::string_at(registry::value_at(s, {"configMap"}), {"name"}));
    }
    add(out, NodeObject::PersistentVolumeClaim,
        registry::string_at(registry::value_at(v, {"persistentVolumeClaim"}), {"claimName"}));
    if (registry::value_at(v, {"ephemeral"}).is_object() && !pod_name.empty()) {
      add(out, NodeObject::PersistentVolumeClaim,
          pod_name + "-" + registry::string_at(v, {"name"}));
    }
  }
  for (const auto& claim : list(spec, "resourceClaims")) {
    std::string name = registry::string_at(claim, {"resourceClaimName"});
    if (name.empty() && !registry::string_at(claim, {"resourceClaimTemplateName"}).empty()) {
      for (const auto& status :
           list(registry::value_at(pod, {"status"}), "resourceClaimStatuses")) {
        if (registry::string_at(status, {"name"}) == registry::string_at(claim, {"name"})) {
          name = registry::string_at(status, {"resourceClaimName"});
        }
      }
    }
    add(out, NodeObject::ResourceClaim, name);
  }
  return out;
}

NodeGraph::NodeGraph(storage::Storage& storage)
    : follower_(
          storage, {kPods, kVolumes, kAttachments},
          [this](bool reset, const std::vector<ObjectChange>& changes) { apply(reset, changes); },
          "node authorizer graph") {}

void NodeGraph::start() {
  follower_.start();
}

void NodeGraph::remove_pod_locked(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return;
  }
  for (const auto& ref : it->second.references) {
    auto nodes = referenced_by_.find(ref);
    if (nodes == referenced_by_.end()) {
      continue;
    }
    if (--nodes->second[it->second.node] <= 0) {
      nodes->second.erase(it->second.node);
    }
    if (nodes->second.empty()) {
      referenced_by_.erase(nodes);
    }
  }
  pods_.erase(it);
}

void NodeGraph::apply(bool reset, const std::vector<ObjectChange>& changes) {
  std::lock_guard lock(mu_);
  if (reset) {
    pods_.clear();
    referenced_by_.clear();
    volumes_.clear();
    attachments_.clear();
  }
  for (const auto& change : changes) {
    const std::string& key = change.key;
    json object;
    if (!change.deleted) {
      object = json::parse(change.value, nullptr, false);
      if (!object.is_object()) {
        continue;
      }
    }
    if (key.starts_with(kPods)) {
      const std::string id = key.substr(std::string_view(kPods).size());
      remove_pod_locked(id);
      const std::string node =
          registry::string_at(registry::value_at(object, {"spec"}), {"nodeName"});
      if (change.deleted || node.empty()) {
        continue;  // only bound pods relate anything to a node
      }
      Pod pod{node, {}};
      const std::string ns = id.substr(0, id.find('/'));
      pod.references.emplace_back(
          NodeObject::Pod, ns,
          registry::string_at(registry::value_at(object, {"metadata"}), {"name"}));
      const json& annotations =
          registry::value_at(registry::value_at(object, {"metadata"}), {"annotations"});
      if (!registry::value_at(annotations, {"kubernetes.io/config.mirror"}).is_string()) {
        for (auto& [kind, name] : pod_references(object)) {
          pod.references.emplace_back(kind, ns, std::move(name));
        }
      }
      for (const auto& ref : pod.references) {
        ++referenced_by_[ref][node];
      }
      pods_[id] = std::move(pod);
    } else if (key.starts_with(kVolumes)) {
      const std::string name = key.substr(std::string_view(kVolumes).size());
      volumes_.erase(name);
      const json& claim = registry::value_at(registry::value_at(object, {"spec"}), {"claimRef"});
      if (change.deleted || !claim.is_object()) {
        continue;
      }
      Volume v{registry::string_at(claim, {"namespace"}), registry::string_at(claim, {"name"}), {}};
      v.secrets = volume_secrets(registry::value_at(object, {"spec"}), v.claim_namespace);
      volumes_[name] = std::move(v);
    } else if (key.starts_with(kAttachments)) {
      const std::string name = key.substr(std::string_view(kAttachments).size());
      attachments_.erase(name);
      if (!change.deleted) {
        attachments_[name] =
            registry::string_at(registry::value_at(object, {"spec"}), {"nodeName"});
      }
    }
  }
}

bool NodeGraph::referenced_locked(const std::string& node, const Key& key) const {
  auto it = referenced_by_.find(key);
  return it != referenced_by_.end() && it->second.count(node) != 0;
}

bool NodeGraph::related(const std::string& node, NodeObject kind, const std::string& ns,
                        const std::string& name) {
  follower_.catch_up();
  std::lock_guard lock(mu_);
  switch (kind) {
    case NodeObject::PersistentVolume: {
      auto it = volumes_.find(name);
      return it != volumes_.end() &&
             referenced_locked(node, {NodeObject::PersistentVolumeClaim, it->second.claim_namespace,
                                      it->second.claim_name});
    }
    case NodeObject::VolumeAttachment: {
      auto it = attachments_.find(name);
      return it != attachments_.end() && it->second == node;
    }
    case NodeObject::Secret:
      if (referenced_locked(node, {kind, ns, name})) {
        return true;
      }
      // A secret a persistent volume names, the volume bound to a claim of a pod on the node.
      for (const auto& [volume_name, volume] : volumes_) {
        for (const auto& [secret_ns, secret] : volume.secrets) {
          if (secret_ns == ns && secret == name &&
              referenced_locked(node, {NodeObject::PersistentVolumeClaim, volume.claim_namespace,
                                       volume.claim_name})) {
            return true;
          }
        }
      }
      return false;
    default:
      return referenced_locked(node, {kind, ns, name});
  }
}

}  // namespace apiserver::authorization
