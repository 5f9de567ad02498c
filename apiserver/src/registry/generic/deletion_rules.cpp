#include "registry/generic/deletion_rules.h"

#include <algorithm>
#include <set>

#include "common/rfc3339.h"
#include "registry/json_access.h"
#include "registry/objects.h"

namespace apiserver::registry {
namespace {

using nlohmann::json;

constexpr const char* kOrphan = "orphan";
constexpr const char* kForeground = "foregroundDeletion";

void count_generation(json& metadata) {
  if (auto generation = integer_at(metadata, {"generation"}); generation && *generation > 0) {
    metadata["generation"] = *generation + 1;
  }
}

std::optional<int64_t> seconds_of(const json& metadata, const char* key) {
  const json* text = find_path(metadata, {key});
  if (text == nullptr || !text->is_string()) {
    return std::nullopt;
  }
  auto parsed = common::parse_rfc3339(text->get<std::string>());
  return parsed ? std::optional<int64_t>(parsed->seconds) : std::nullopt;
}

// The first of "orphan" and "foregroundDeletion" in the list, or "" when neither is there.
std::string first_gc_finalizer(const json& metadata) {
  const json* list = find_path(metadata, {"finalizers"});
  if (list != nullptr && list->is_array()) {
    for (const json& f : *list) {
      if (f == kOrphan || f == kForeground) {
        return f.get<std::string>();
      }
    }
  }
  return "";
}

bool lists(const json& metadata, const char* finalizer) {
  const json* list = find_path(metadata, {"finalizers"});
  return list != nullptr && list->is_array() &&
         std::find(list->begin(), list->end(), json(finalizer)) != list->end();
}

// shouldOrphanDependents and shouldDeleteDependents of the generic store, or the namespace
// registry's shouldHave...Finalizer pair for AsRequested.
std::pair<bool, bool> wanted(GcPolicy policy, const json& metadata, std::optional<bool> orphan,
                             const std::optional<std::string>& propagation) {
  if (policy == GcPolicy::Unsupported) {
    return {false, false};
  }
  if (policy == GcPolicy::AsRequested) {
    if (orphan) {
      return {*orphan, !*orphan};
    }
    if (propagation) {
      return {*propagation == "Orphan", *propagation == "Foreground"};
    }
    return {lists(metadata, kOrphan), lists(metadata, kForeground)};
  }
  if (orphan) {
    return {*orphan, false};
  }
  if (propagation == "Orphan" || propagation == "Background" || propagation == "Foreground") {
    return {*propagation == "Orphan", *propagation == "Foreground"};
  }
  const std::string first = first_gc_finalizer(metadata);
  if (!first.empty()) {
    return {first == kOrphan, first == kForeground};
  }
  return {policy == GcPolicy::OrphanDependents, false};
}

}  // namespace

bool has_finalizers(const json& metadata) {
  const json* list = find_path(metadata, {"finalizers"});
  return list != nullptr && list->is_array() && !list->empty();
}

GracefulStep begin_graceful_delete(const KindStrategy* strategy, json& object,
                                   std::optional<int64_t> requested,
                                   std::chrono::system_clock::time_point now) {
  GracefulStep step;
  if (requested && *requested < 0) {
    requested = 1;
  }
  json& meta = object["metadata"];
  std::optional<int64_t> stored_period = integer_at(meta, {"deletionGracePeriodSeconds"});
  if (stored_period && *stored_period < 0) {
    stored_period = 1;
    meta["deletionGracePeriodSeconds"] = 1;
  }
  if (strategy == nullptr || strategy->grace_period == nullptr) {
    return step;
  }
  if (meta.contains("deletionTimestamp")) {
    if (!stored_period || *stored_period == 0) {
      return step;  // marked for its finalizers, or a removal that failed half-way: go on
    }
    if (!requested || *requested >= *stored_period) {
      step.pending = true;  // only a shorter grace period changes anything
      return step;
    }
    // The deadline moves by the difference: the time the deletion began plus the new period.
    const auto deadline = seconds_of(meta, "deletionTimestamp");
    std::optional<std::string> moved;
    if (deadline) {
      moved = common::format_rfc3339(*deadline - *stored_period + *requested);
    }
    meta["deletionTimestamp"] = moved ? *moved : rfc3339(now + std::chrono::seconds(*requested));
    meta["deletionGracePeriodSeconds"] = *requested;
    step.graceful = true;
    step.period = *requested;
    return step;
  }
  step.graceful = true;
  step.period = strategy->grace_period(object, requested);
  meta["deletionTimestamp"] = rfc3339(now + std::chrono::seconds(step.period));
  meta["deletionGracePeriodSeconds"] = step.period;
  count_generation(meta);
  return step;
}

std::optional<json> gc_finalizers(GcPolicy policy, const json& metadata,
                                  std::optional<bool> orphan_dependents,
                                  const std::optional<std::string>& propagation_policy) {
  const auto [orphan, foreground] = wanted(policy, metadata, orphan_dependents, propagation_policy);
  json kept = json::array();
  std::set<std::string> before;
  const json* list = find_path(metadata, {"finalizers"});
  if (list != nullptr && list->is_array()) {
    for (const json& f : *list) {
      const std::string name = f.is_string() ? f.get<std::string>() : std::string();
      before.insert(name);
      if (name != kOrphan && name != kForeground) {
        kept.push_back(f);
      }
    }
  }
  if (orphan) {
    kept.push_back(kOrphan);
  }
  if (foreground) {
    kept.push_back(kForeground);
  }
  std::set<std::string> after;
  for (const json& f : kept) {
    after.insert(f.is_string() ? f.get<std::string>() : std::string());
  }
  if (after == before) {
    return std::nullopt;
  }
  return kept;
}

void mark_as_deleting(json& metadata, std::chrono::system_clock::time_point now) {
  const auto marked = seconds_of(metadata, "deletionTimestamp");
  if (!metadata.contains("deletionTimestamp")) {
    count_generation(metadata);
  }
  const auto now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (!marked || *marked > now_seconds) {
    metadata["deletionTimestamp"] = rfc3339(now);
  }
  metadata["deletionGracePeriodSeconds"] = 0;
}

}  // namespace apiserver::registry
