// ResourceQuota (k8s.io/apiserver's admission/plugin/resourcequota): in a namespace with
// ResourceQuotas, a create (or an update that changes usage: a claim's resize, a service's
// type) is measured by its evaluator (quota_evaluators.h) against every quota whose status.hard
// names what it uses and whose scopes select it. A quota whose constraints the object misses,
// whose status.used does not yet cover its hard names, or whose limit the new usage would pass
// refuses the write with upstream's 403; otherwise the usage is charged to each quota's
// status.used at once, with a compare-and-swap write of the quota (so that two creates cannot
// both take the last unit), re-reading and re-checking on a conflict, a bounded number of times.
// A dry run is checked and not charged. The resource quota controller recomputes status.used
// from the objects themselves later, as upstream's.
#include <cmath>
#include <vector>

#include "admission/plugins.h"
#include "admission/plugins/quota_evaluators.h"
#include "registry/json_access.h"

namespace apiserver::admission {
namespace {

using nlohmann::json;
using quota::Evaluator;
using quota::Usage;

// Upstream tries the quota writes three times before giving up.
constexpr int kAttempts = 3;

int64_t milli(double value) {
  return std::llround(value * 1000);
}

// quota's prettyPrint: "a=1,b=2Gi", sorted by name.
std::string pretty(const Usage& usage) {
  std::string out;
  for (const auto& [name, amount] : usage) {
    out += (out.empty() ? "" : ",") + name + "=" + amount.text();
  }
  return out;
}

std::string pretty_names(const std::set<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    out += (out.empty() ? "" : ",") + name;
  }
  return out;
}

Usage mask(const Usage& usage, const std::set<std::string>& names) {
  Usage out;
  for (const auto& [name, amount] : usage) {
    if (names.contains(name)) {
      out.emplace(name, amount);
    }
  }
  return out;
}

std::set<std::string> keys(const Usage& usage) {
  std::set<std::string> out;
  for (const auto& [name, amount] : usage) {
    (void)amount;
    out.insert(name);
  }
  return out;
}

// One quota the request is charged to: where it is stored and its status.used after the charge.
struct Charge {
  std::string name;
  storage::Object stored;
  json quota;
  Usage requested;
  Usage used_after;
  Usage hard;
};

class ResourceQuota final : public Plugin {
 public:
  explicit ResourceQuota(const Services& services) : services_(services) {}
  std::string_view name() const override { return "ResourceQuota"; }
  bool validates() const override { return true; }

  Decision validate(Attributes& a, std::string& note) override {
    const registry::Resource& r = *a.resource;
    if (!a.subresource.empty() || a.namespace_.empty() || a.object == nullptr ||
        (r.group.empty() && r.resource == "namespaces") ||
        (a.operation != Operation::Create && a.operation != Operation::Update)) {
      return std::nullopt;
    }
    const Evaluator evaluator(r.group, r.resource);
    if (!evaluator.handles(a.operation == Operation::Create, a.subresource)) {
      return std::nullopt;
    }
    std::set<std::string> charged;  // quotas already written
    std::vector<std::string> notes;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      std::vector<Charge> charges;
      if (auto refused = check(a, evaluator, charged, charges)) {
        return refused;
      }
      if (charges.empty()) {
        break;
      }
      bool conflict = false;
      for (Charge& c : charges) {
        if (!a.dry_run && !write(c)) {
          conflict = true;
          continue;
        }
        charged.insert(c.name);
        notes.push_back(describe(c));
      }
      if (!conflict) {
        break;
      }
      if (attempt + 1 == kAttempts) {
        return errors::internal_error("resource quota evaluation timed out");
      }
    }
    for (const auto& n : notes) {
      note += (note.empty() ? "" : "; ") + n;
    }
    if (a.dry_run && !note.empty()) {
      note += " (dry run: not written)";
    }
    return std::nullopt;
  }

 private:
  // Checks the request against the namespace's quotas not in `skip`; fills what to charge.
  Decision check(const Attributes& a, const Evaluator& evaluator, const std::set<std::string>& skip,
                 std::vector<Charge>& charges) const {
    const json& object = *a.object;
    std::vector<Charge> interesting;
    for (auto& stored : services_.list_stored("", "resourcequotas", a.namespace_)) {
      json q = json::parse(stored.value, nullptr, false);
      const std::string name = registry::string_at(q, {"metadata", "name"});
      if (!q.is_object() || skip.contains(name) || !evaluator.matches(q, object)) {
        continue;
      }
      const json* hard = registry::find_path(q, {"status", "hard"});
      const json* used = registry::find_path(q, {"status", "used"});
      const std::set<std::string> restricted = evaluator.matching_resources(quota::names_of(hard));
      if (std::string why = evaluator.constraints(restricted, object); !why.empty()) {
        return forbidden(a, "failed quota: " + name + ": " + why);
      }
      for (const auto& resource : restricted) {
        if (!amount_at(used, resource)) {
          return forbidden(
              a, "status unknown for quota: " + name + ", resources: " + pretty_names(restricted));
        }
      }
      interesting.push_back(Charge{name, std::move(stored), std::move(q), {}, {}, {}});
    }
    if (interesting.empty()) {
      return std::nullopt;
    }
    Usage delta = evaluator.usage(object);
    std::set<std::string> negative;
    for (const auto& [resource, amount] : delta) {
      if (milli(amount.value) < 0) {
        negative.insert(resource);
      }
    }
    if (!negative.empty()) {
      return forbidden(a, "quota usage is negative for resource(s): " + pretty_names(negative));
    }
    if (a.operation == Operation::Update && a.old_object != nullptr) {
      // Charge what the update adds, never less than nothing.
      const Usage before = evaluator.usage(*a.old_object);
      for (auto& [resource, amount] : delta) {
        if (auto it = before.find(resource); it != before.end()) {
          amount.value = std::max(0.0, amount.value - it->second.value);
        }
      }
    }
    std::erase_if(delta, [](const auto& entry) { return milli(entry.second.value) == 0; });
    if (delta.empty()) {
      return std::nullopt;
    }
    for (Charge& c : interesting) {
      c.hard = amounts(registry::find_path(c.quota, {"status", "hard"}));
      const Usage used = amounts(registry::find_path(c.quota, {"status", "used"}));
      c.requested = mask(delta, keys(c.hard));
      if (c.requested.empty()) {
        continue;
      }
      c.used_after = used;
      std::set<std::string> exceeded;
      for (const auto& [resource, amount] : c.requested) {
        auto [it, inserted] = c.used_after.emplace(resource, amount);
        if (!inserted) {
          it->second.add(amount);
        }
        auto limit = c.hard.find(resource);
        if (limit != c.hard.end() && milli(it->second.value) > milli(limit->second.value)) {
          exceeded.insert(resource);
        }
      }
      if (!exceeded.empty()) {
        return forbidden(a, "exceeded quota: " + c.name +
                                ", requested: " + pretty(mask(c.requested, exceeded)) +
                                ", used: " + pretty(mask(used, exceeded)) +
                                ", limited: " + pretty(mask(c.hard, exceeded)));
      }
      charges.push_back(std::move(c));
    }
    return std::nullopt;
  }

  // Writes the quota's new status.used if it is unchanged since it was read.
  bool write(Charge& c) const {
    json used = json::object();
    for (const auto& [resource, amount] : c.used_after) {
      used[resource] = amount.text();
    }
    // Names the request did not touch keep their text as written.
    if (const json* before = registry::find_path(c.quota, {"status", "used"});
        before != nullptr && before->is_object()) {
      for (const auto& [resource, value] : before->items()) {
        if (!c.requested.contains(resource)) {
          used[resource] = value;
        }
      }
    }
    if (!c.quota["status"].is_object()) {
      c.quota["status"] = json::object();
    }
    c.quota["status"]["used"] = used;
    int64_t revision = 0;
    return !services_.storage.update(c.stored.key, c.quota.dump(), c.stored.mod_revision, revision);
  }

  static std::string describe(const Charge& c) {
    std::string out = "charged ";
    bool first = true;
    for (const auto& [resource, amount] : c.requested) {
      out += first ? "" : ", ";
      out += resource + "=" + amount.text();
      if (c.requested.size() > 1) {
        out += " (" + c.used_after.at(resource).text() + "/" + hard_text(c, resource) + ")";
      }
      first = false;
    }
    out += " to " + c.name;
    if (c.requested.size() == 1) {
      const std::string& resource = c.requested.begin()->first;
      out += " (" + c.used_after.at(resource).text() + "/" + hard_text(c, resource) + ")";
    }
    return out;
  }

  static std::string hard_text(const Charge& c, const std::string& resource) {
    auto it = c.hard.find(resource);
    return it == c.hard.end() ? "?" : it->second.text();
  }

  const Services& services_;
};

}  // namespace

std::unique_ptr<Plugin> make_resource_quota(const Services& services) {
  return std::make_unique<ResourceQuota>(services);
}

}  // namespace apiserver::admission
