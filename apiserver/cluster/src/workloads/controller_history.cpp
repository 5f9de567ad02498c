#include "workloads/controller_history.h"

#include <algorithm>

#include "client/objects.h"

namespace cluster {

const ResourceRef kControllerRevisions{"apps", "v1", "controllerrevisions", true};

uint32_t fnv1_32(std::string_view data, uint32_t hash) {
  for (unsigned char c : data) {
    hash *= 16777619u;
    hash ^= c;
  }
  return hash;
}

std::string safe_encode(std::string_view text) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    out.push_back(kAlphabet[c % kAlphabet.size()]);
  }
  return out;
}

json template_patch(const json& owner) {
  const json* tmpl = at(owner, {"spec", "template"});
  json copy = tmpl != nullptr && tmpl->is_object() ? *tmpl : json::object();
  copy["$patch"] = "replace";
  return {{"spec", {{"template", std::move(copy)}}}};
}

std::string go_json(const json& value) {
  const std::string text = value.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string revision_hash(const json& data, std::optional<int64_t> collision_count) {
  uint32_t hash = fnv1_32(go_json(data));
  if (collision_count) {
    hash = fnv1_32(std::to_string(*collision_count), hash);
  }
  return safe_encode(std::to_string(hash));
}

std::string revision_name(const std::string& owner_name, const std::string& hash) {
  return owner_name.substr(0, 223) + "-" + hash;
}

json new_revision(const json& owner, const json& data, int64_t revision,
                  std::optional<int64_t> collision_count) {
  const json* tmpl_labels = at(owner, {"spec", "template", "metadata", "labels"});
  json labels = tmpl_labels != nullptr && tmpl_labels->is_object() ? *tmpl_labels : json::object();
  const std::string hash = revision_hash(data, collision_count);
  labels[kRevisionHashLabel] = hash;
  json metadata = {{"name", revision_name(name_of(owner), hash)},
                   {"namespace", namespace_of(owner)},
                   {"labels", std::move(labels)},
                   {"ownerReferences", json::array({controller_owner_ref(owner)})}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", std::move(metadata)},
          {"data", data},
          {"revision", revision}};
}

json revision_template(const json& revision) {
  const json* tmpl = at(revision, {"data", "spec", "template"});
  json copy = tmpl != nullptr && tmpl->is_object() ? *tmpl : json::object();
  copy.erase("$patch");
  return copy;
}

std::vector<ObjectPtr> by_revision_number(std::vector<ObjectPtr> revisions) {
  std::erase_if(revisions, [](const ObjectPtr& r) { return being_deleted(*r); });
  std::stable_sort(revisions.begin(), revisions.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
    const int64_t ra = int_at(*a, {"revision"}, 0), rb = int_at(*b, {"revision"}, 0);
    if (ra != rb) {
      return ra < rb;
    }
    return name_of(*a) < name_of(*b);
  });
  return revisions;
}

std::vector<ObjectPtr> owned_revisions(const Informer& revisions, const json& owner) {
  const std::string uid = uid_of(owner);
  std::vector<ObjectPtr> owned;
  for (const ObjectPtr& r : revisions.list(namespace_of(owner))) {
    const json* ref = controller_ref(*r);
    if (ref != nullptr && string_at(*ref, {"uid"}) == uid) {
      owned.push_back(r);
    }
  }
  return by_revision_number(std::move(owned));
}

int64_t next_revision_number(const std::vector<ObjectPtr>& revisions) {
  int64_t highest = 0;
  for (const ObjectPtr& r : revisions) {
    highest = std::max(highest, int_at(*r, {"revision"}, 0));
  }
  return highest + 1;
}

Result<json> create_revision(const Client& client, const json& owner, json revision,
                             int64_t& collision_count) {
  const std::string ns = namespace_of(owner);
  for (;;) {
    const std::string hash = revision_hash(revision["data"], collision_count);
    revision["metadata"]["name"] = revision_name(name_of(owner), hash);
    revision["metadata"]["labels"][kRevisionHashLabel] = hash;
    auto created = client.create(kControllerRevisions.collection(ns), revision);
    if (created || !created.error().already_exists()) {
      return created;
    }
    auto existing = client.get(kControllerRevisions.object(ns, name_of(revision)));
    if (!existing) {
      return existing;
    }
    const json* data = at(*existing, {"data"});
    if (data != nullptr && *data == revision["data"]) {
      return existing;
    }
    ++collision_count;
  }
}

std::vector<std::string> revisions_to_prune(const std::vector<ObjectPtr>& revisions,
                                            const std::set<std::string>& live, int64_t limit) {
  std::vector<std::string> dead;
  for (const ObjectPtr& r : revisions) {
    if (live.count(name_of(*r)) == 0) {
      dead.push_back(name_of(*r));
    }
  }
  const auto excess = static_cast<int64_t>(dead.size()) - std::max<int64_t>(limit, 0);
  if (excess <= 0) {
    return {};
  }
  dead.resize(static_cast<size_t>(excess));
  return dead;
}

}  // namespace cluster
