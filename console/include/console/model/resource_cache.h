// The console's copy of the objects of one resource kind (optionally one namespace), kept the way
// a client-go informer keeps its store: filled by a LIST, then moved forward by the events of a
// watch started at the list's resourceVersion. When the server answers the watch with 410 Gone
// (the version was compacted), the cache asks for a relist and the next replace() starts over.
//
// Besides the objects it keeps what the UI needs: when each object last changed (for a brief
// highlight), its last few versions (for a diff), and counts per namespace.
//
// Example: replace({items: [a@5, b@6], metadata.resourceVersion: "7"}) -> resource_version() "7";
// apply(MODIFIED a@9) -> a has versions [5, 9]; apply(MODIFIED a@8) arrives late and is ignored
// (Stale); apply(BOOKMARK @12) -> resource_version() "12"; apply(ERROR 410) -> needs_relist().
//
// Pure state, not thread-safe: the UI thread owns it and feeds it the messages it drains from the
// client's queue each frame. Times are whatever the caller passes in (milliseconds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace console::model {

struct ObjectVersion {
  nlohmann::json object;
  std::string resource_version;
  int64_t seen_at_ms = 0;  // when the cache received this version
};

struct CachedObject {
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;
  // Oldest first; back() is the current object. Never empty; at most the cache's history depth.
  std::deque<ObjectVersion> versions;

  const nlohmann::json& object() const { return versions.back().object; }
  const std::string& resource_version() const { return versions.back().resource_version; }
  // When the object was added or last changed (a relist that finds it unchanged keeps the time).
  int64_t changed_at_ms() const { return versions.back().seen_at_ms; }
};

// Objects are keyed by (namespace, name) so that iteration runs by namespace, then name.
using ObjectKey = std::pair<std::string, std::string>;
struct ObjectKeyLess {
  using is_transparent = void;
  using View = std::pair<std::string_view, std::string_view>;
  static View view(const ObjectKey& key) { return {key.first, key.second}; }
  static View view(const View& key) { return key; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return view(a) < view(b);
  }
};
using ObjectMap = std::map<ObjectKey, CachedObject, ObjectKeyLess>;

enum class ApplyOutcome {
  Added,     // ADDED, or MODIFIED for an object the cache did not hold
  Modified,  // the stored object was replaced by a newer version
  Deleted,
  Stale,     // older than (or as old as) the stored version, or a delete of an unknown object
  Ignored,   // outside the cache's namespace
  Bookmark,  // only resource_version() moved
  Expired,   // ERROR 410: the watch cannot resume; needs_relist() is now true
  Failed,    // another ERROR status; see last_error()
  Invalid,   // not a watch event this cache understands; see last_error()
};

class ResourceCache {
 public:
  static constexpr size_t kDefaultHistoryDepth = 16;

  // `namespace_` empty = all namespaces (and cluster-scoped kinds). `history_depth` is clamped to
  // at least 1 (the current version).
  explicit ResourceCache(std::string namespace_ = {}, size_t history_depth = kDefaultHistoryDepth);

  // Replaces everything with a LIST response ({items: [...], metadata: {resourceVersion}}) and
  // clears needs_relist(). Objects whose resourceVersion did not change keep their history and
  // change time; changed ones gain a version. Items get the kind and apiVersion the list implies
  // (a LIST leaves them off), so versions from lists and watches render alike. Returns an error
  // message (also kept in last_error()) and changes nothing else when the list is malformed
  // (items not an array, an item without metadata.name).
  std::optional<std::string> replace(const nlohmann::json& list, int64_t now_ms);

  // Applies one watch event ({type, object}). An ADDED/MODIFIED/DELETED event whose object's
  // resourceVersion is not newer than the stored one (both compared as integers when both parse)
  // is Stale and changes nothing; a DELETED as new as the stored version still deletes. Every
  // event carrying a resourceVersion newer than resource_version() advances it.
  ApplyOutcome apply(const nlohmann::json& event, int64_t now_ms);

  // Where to resume a watch: the list's or the newest event's resourceVersion ("" before a list).
  const std::string& resource_version() const { return resource_version_; }
  bool needs_relist() const { return needs_relist_; }
  // The message of the last Failed/Invalid event or malformed list; cleared by a good replace().
  const std::string& last_error() const { return last_error_; }
  const std::string& namespace_scope() const { return namespace_; }

  size_t size() const { return objects_.size(); }
  // Null when absent. Valid until the next replace() or apply().
  const CachedObject* find(std::string_view namespace_, std::string_view name) const;
  // The object's last versions, oldest first; empty when absent. Valid until the next change.
  const std::deque<ObjectVersion>& history(std::string_view namespace_,
                                           std::string_view name) const;
  // Objects per namespace ("" for cluster-scoped); namespaces with no objects are absent.
  const std::map<std::string, size_t, std::less<>>& namespace_counts() const { return counts_; }
  size_t count_in(std::string_view namespace_) const;
  // Every object, ordered by namespace then name.
  const ObjectMap& objects() const { return objects_; }

 private:
  bool in_scope(const std::string& object_namespace) const;
  // Appends `version` to the object's history, creating the object when new.
  void store(ObjectKey key, ObjectVersion version);
  void erase(ObjectMap::iterator it);
  void advance_resource_version(const std::string& resource_version);
  ApplyOutcome invalid(std::string message);

  std::string namespace_;
  size_t history_depth_;
  ObjectMap objects_;
  std::map<std::string, size_t, std::less<>> counts_;
  std::string resource_version_;
  bool needs_relist_ = false;
  std::string last_error_;
};

}  // namespace console::model
