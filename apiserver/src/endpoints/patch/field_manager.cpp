// managedFields bookkeeping for Update and Apply, conflicts as a Status, field manager names.
// Mirrors the upstream manager chain: decode -> cap managers -> manager identifier ->
// managed-fields updater (times) -> strip metadata -> structured-merge-diff Updater.
#include <algorithm>
#include <cstdio>

#include "common/go_quote.h"
#include "common/rfc3339.h"
#include "endpoints/patch/deep_stack.h"
#include "endpoints/patch/field_manager.h"
#include "errors/status.h"
#include "registry/go_text.h"

namespace apiserver::endpoints::patch {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxUpdateManagers = 10;
constexpr const char* kAncientChanges = "ancient-changes";

// One managedFields entry, keyed in Managers by its identifier.
struct Entry {
  std::string manager;
  std::string operation;  // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::optional<std::string> time;
  FieldSet set;
};

using Managers = std::map<std::string, Entry>;

// BuildManagerIdentifier: the entry without time and fields, apiVersion dropped for Apply, as
// JSON in ManagedFieldsEntry field order with omitempty.
std::string identifier(const std::string& manager, const std::string& operation,
                       const std::string& api_version, const std::string& subresource) {
  std::string out = "{";
  auto add = [&](const char* key, const std::string& value) {
    if (value.empty()) {
      return;
    }
    if (out.size() > 1) {
      out += ",";
    }
    out += std::string("\"") + key + "\":" + registry::go_json_string(value);
  };
  add("manager", manager);
  add("operation", operation);
  add("apiVersion", operation == "Apply" ? std::string() : api_version);
  add("subresource", subresource);
  return out + "}";
}

std::string entry_identifier(const Entry& entry) {
  return identifier(entry.manager, entry.operation, entry.api_version, entry.subresource);
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// DecodeManagedFields, with its validation: the managers, or what is wrong with the first bad
// entry.
common::Result<Managers> decode(const json& list) {
  Managers out;
  if (list.is_null()) {
    return out;
  }
  if (!list.is_array()) {
    return std::string("managedFields must be a list");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    if (!item.is_object()) {
      return "managed fields entry " + std::to_string(i) + " is not an object";
    }
    Entry entry;
    entry.manager = string_field(item, "manager");
    entry.operation = string_field(item, "operation");
    entry.api_version = string_field(item, "apiVersion");
    entry.subresource = string_field(item, "subresource");
    if (entry.operation != "Apply" && entry.operation != "Update") {
      return std::string("operation must be `Apply` or `Update`");
    }
    if (entry.api_version.empty()) {
      return std::string("apiVersion must not be empty");
    }
    std::string fields_type = string_field(item, "fieldsType");
    if (fields_type.empty()) {
      return "missing fieldsType in managed fields entry " + std::to_string(i);
    }
    if (fields_type != "FieldsV1") {
      return "invalid fieldsType \"" + fields_type + "\" in managed fields entry " +
             std::to_string(i);
    }
    if (auto time = item.find("time"); time != item.end() && time->is_string()) {
      entry.time = time->get<std::string>();
    }
    if (auto fields = item.find("fieldsV1"); fields != item.end() && !fields->is_null()) {
      auto set = FieldSet::from_fields_v1(*fields);
      if (!set) {
        return "error decoding set: " + set.error();
      }
      entry.set = std::move(*set);
    }
    out[entry_identifier(entry)] = std::move(entry);
  }
  return out;
}

// Seconds since the epoch of an RFC 3339 time; 0 when unparsable (like a nil time upstream).
long long unix_seconds(const std::optional<std::string>& time) {
  if (!time) {
    return 0;
  }
  const auto parsed = common::parse_rfc3339(*time);
  return parsed ? parsed->seconds : 0;
}

// encodeManagedFields + sortEncodedManagedFields.
json encode(const Managers& managers) {
  std::vector<const Entry*> entries;
  for (const auto& [id, entry] : managers) {
    entries.push_back(&entry);
  }
  std::sort(entries.begin(), entries.end(), [](const Entry* p, const Entry* q) {
    if (p->operation != q->operation) {
      return p->operation < q->operation;
    }
    long long ps = unix_seconds(p->time);
    long long qs = unix_seconds(q->time);
    if (ps != qs) {
      return ps < qs;
    }
    if (p->manager != q->manager) {
      return p->manager < q->manager;
    }
    if (p->api_version != q->api_version) {
      return p->api_version < q->api_version;
    }
    return p->subresource < q->subresource;
  });
  json out = json::array();
  for (const Entry* entry : entries) {
    json item = {{"manager", entry->manager},
                 {"operation", entry->operation},
                 {"apiVersion", entry->api_version},
                 {"fieldsType", "FieldsV1"},
                 {"fieldsV1", entry->set.to_fields_v1()}};
    if (entry->time) {
      item["time"] = *entry->time;
    }
    if (!entry->subresource.empty()) {
      item["subresource"] = entry->subresource;
    }
    if (entry->manager.empty()) {
      item.erase("manager");
    }
    out.push_back(std::move(item));
  }
  return out;
}

// The paths stripMetaManager takes out of the writer's set (exact members only).
const FieldSet& strip_set() {
  static const FieldSet set = [] {
    FieldSet s;
    s.insert({"f:apiVersion"});
    s.insert({"f:kind"});
    s.insert({"f:metadata"});
    for (const char* name : {"name", "namespace", "creationTimestamp", "selfLink", "uid",
                             "clusterName", "generation", "managedFields", "resourceVersion"}) {
      s.insert({"f:metadata", field_element(name)});
    }
    return s;
  }();
  return set;
}

json without_managed_fields(const json& object) {
  json out = object;
  if (out.is_object()) {
    if (auto meta = out.find("metadata"); meta != out.end() && meta->is_object()) {
      meta->erase("managedFields");
    }
  }
  return out;
}

void set_managed_fields(json& object, const Managers& managers) {
  if (!object.is_object()) {
    return;
  }
  auto meta = object.find("metadata");
  const bool has_meta = meta != object.end() && meta->is_object();
  if (managers.empty()) {
    if (has_meta) {
      meta->erase("managedFields");  // an apply configuration may carry no metadata at all
    }
    return;
  }
  if (!has_meta) {
    object["metadata"] = json::object();
  }
  object["metadata"]["managedFields"] = encode(managers);
}

const json* managed_fields_of(const json& object) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) {
    return nullptr;
  }
  auto it = meta->find("managedFields");
  return it == meta->end() ? nullptr : &*it;
}

bool is_reset(const json& list) {
  if (!list.is_array()) {
    return false;
  }
  if (list.empty()) {
    return true;
  }
  if (list.size() != 1 || !list[0].is_object()) {
    return false;
  }
  for (auto it = list[0].begin(); it != list[0].end(); ++it) {
    const json& v = it.value();
    if (!(v.is_null() || (v.is_string() && v.get<std::string>().empty()))) {
      return false;
    }
  }
  return true;
}

Comparison exclude(const Comparison& c, const FieldSet& ignored) {
  return {c.added.recursive_difference(ignored), c.modified.recursive_difference(ignored),
          c.removed.recursive_difference(ignored)};
}

// Updater.update: every manager but `workflow` loses what changed (a conflict unless `force`)
// and what was removed; empty entries go. Returns the conflicts (managers untouched) when not
// forced and there are any.
std::vector<Conflict> update_others(Managers& managers, const Comparison& comparison,
                                    const std::string& workflow, bool force) {
  FieldSet changed = comparison.modified.union_with(comparison.added);
  std::map<std::string, FieldSet> conflicts;
  for (const auto& [id, entry] : managers) {
    if (id == workflow) {
      continue;
    }
    FieldSet conflict = entry.set.intersection(changed);
    if (!conflict.empty()) {
      conflicts.emplace(id, std::move(conflict));
    }
  }
  if (!force && !conflicts.empty()) {
    std::vector<Conflict> out;
    for (const auto& [id, set] : conflicts) {
      for (auto& path : set.paths()) {
        out.push_back({id, std::move(path)});
      }
    }
    return out;
  }
  for (auto& [id, entry] : managers) {
    if (id == workflow) {
      continue;
    }
    if (auto it = conflicts.find(id); it != conflicts.end()) {
      entry.set = entry.set.difference(it->second);
    }
    entry.set = entry.set.difference(comparison.removed);
  }
  for (auto it = managers.begin(); it != managers.end();) {
    it = it->second.set.empty() ? managers.erase(it) : std::next(it);
  }
  return {};
}

// capManagersManager: folds the oldest Update entries into "ancient-changes" per apiVersion.
void cap_update_managers(Managers& managers) {
  std::vector<std::string> updaters;
  for (const auto& [id, entry] : managers) {
    if (entry.operation == "Update") {
      updaters.push_back(id);
    }
  }
  if (updaters.size() <= kMaxUpdateManagers) {
    return;
  }
  std::sort(updaters.begin(), updaters.end(), [&](const std::string& a, const std::string& b) {
    long long as = unix_seconds(managers[a].time);
    long long bs = unix_seconds(managers[b].time);
    return as != bs ? as < bs : a < b;
  });
  std::map<std::string, std::string> version_to_first;
  std::size_t length = updaters.size();
  for (std::size_t i = 0; i < updaters.size() && length > kMaxUpdateManagers; ++i) {
    const std::string& id = updaters[i];
    Entry entry = managers[id];
    std::string bucket = identifier(kAncientChanges, "Update", entry.api_version, "");
    auto first = version_to_first.find(entry.api_version);
    if (first == version_to_first.end()) {
      version_to_first.emplace(entry.api_version, id);
      continue;
    }
    if (managers.count(bucket) == 0) {
      Entry moved = managers[first->second];
      managers.erase(first->second);
      moved.manager = kAncientChanges;
      moved.operation = "Update";
      moved.subresource.clear();
      managers[bucket] = std::move(moved);
    }
    Entry& target = managers[bucket];
    target.set = entry.set.union_with(target.set);
    target.api_version = entry.api_version;
    target.time = entry.time;
    managers.erase(id);
    --length;
  }
}

// Updater.prune: drops what the applier applied last time and no longer does, unless someone
// (including the applier's new configuration) still owns it.
json prune(const ObjectType& type, const json& merged, const Managers& managers,
           const FieldSet& last) {
  if (last.empty()) {
    return merged;
  }
  FieldSet last_named = ensure_named_fields_are_members(type, last);
  json pruned = remove_items(type, merged, last_named);

  FieldSet managed;
  for (const auto& [id, entry] : managers) {
    managed = managed.union_with(entry.set);
  }
  FieldSet merged_set = ensure_named_fields_are_members(type, to_field_set(type, merged));
  FieldSet pruned_set = ensure_named_fields_are_members(type, to_field_set(type, pruned));
  managed = ensure_named_fields_are_members(type, managed);
  pruned = remove_items(type, merged, merged_set.difference(pruned_set.union_with(managed)));

  pruned_set = ensure_named_fields_are_members(type, to_field_set(type, pruned));
  return remove_items(type, merged, merged_set.difference(pruned_set).intersection(last_named));
}

// Go's unicode.IsPrint, approximated outside ASCII: control, format and separator characters
// other than the ASCII space are not printable.
bool is_print(char32_t r) {
  if (r < 0x20 || (r >= 0x7f && r <= 0xa0) || r == 0xad) {
    return false;
  }
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) ||
      (r >= 0x205f && r <= 0x206f) || r == 0x3000 || r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb)) {
    return false;
  }
  return true;
}

// Decodes one UTF-8 rune at s[i]; invalid bytes decode as U+FFFD of width 1, like Go.
char32_t decode_rune(std::string_view s, std::size_t i, std::size_t* width) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  *width = 1;
  if (c < 0x80) {
    return c;
  }
  std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
  if (n == 0 || i + n > s.size() || c >= 0xf8) {
    return 0xfffd;
  }
  char32_t r = c & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      return 0xfffd;
    }
    r = (r << 6) | (byte(i + k) & 0x3f);
  }
  *width = n;
  return r;
}

json status(int code, const std::string& reason, const std::string& message, json details) {
  return errors::failure(code, reason, message, errors::Details::from_json(details)).document();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

json update_managed_fields_of(const ObjectType& type, const json* live, const json& new_object,
                              const Writer& writer) {
  if (!new_object.is_object() || !new_object.contains("metadata") ||
      !new_object["metadata"].is_object()) {
    return new_object;
  }
  auto decode_live = [&] {
    if (live != nullptr) {
      if (const json* list = managed_fields_of(*live); list != nullptr) {
        auto decoded = decode(*list);
        return decoded ? std::move(*decoded) : Managers();
      }
    }
    return Managers();
  };
  Managers managers;
  const json* sent = managed_fields_of(new_object);
  if (!writer.subresource.empty()) {
    managers = decode_live();
  } else if (sent != nullptr && is_reset(*sent)) {
    managers.clear();
  } else {
    auto decoded = sent != nullptr ? decode(*sent) : common::Result<Managers>(Managers());
    if (decoded && !decoded->empty()) {
      managers = std::move(*decoded);
    } else {
      managers = decode_live();
    }
  }

  json before = live != nullptr ? without_managed_fields(*live) : zero_object(type);
  json after = without_managed_fields(new_object);

  // Upstream runs the write as manager "current-operation" and merges it into the writer's entry.
  Comparison comparison = compare(type, before, after);
  update_others(managers, exclude(comparison, writer.reset_fields), "", true);
  FieldSet taken = comparison.modified.union_with(comparison.added)
                       .difference(comparison.removed)
                       .recursive_difference(writer.reset_fields)
                       .difference(strip_set());
  if (!taken.empty()) {
    std::string manager = writer.manager.empty() ? "unknown" : writer.manager;
    std::string id = identifier(manager, "Update", writer.api_version, writer.subresource);
    auto it = managers.find(id);
    if (it == managers.end()) {
      managers[id] = Entry{manager,    "Update",        writer.api_version, writer.subresource,
                           writer.now, std::move(taken)};
    } else {
      it->second.set = taken.union_with(it->second.set);
      it->second.api_version = writer.api_version;
      it->second.time = writer.now;
    }
  }
  cap_update_managers(managers);
  set_managed_fields(after, managers);
  return after;
}

}  // namespace

json update_managed_fields(const ObjectType& type, const json* live, const json& new_object,
                           const Writer& writer) {
  const std::size_t depth =
      std::max(live != nullptr ? json_depth(*live) : 0, json_depth(new_object));
  return with_stack_for(depth,
                        [&] { return update_managed_fields_of(type, live, new_object, writer); });
}

namespace {

ApplyResult apply_of(const ObjectType& type, const json* live, const json& config,
                     const Writer& writer, bool force) {
  ApplyResult result;
  if (!config.is_object()) {
    result.outcome = ApplyResult::Outcome::BadRequest;
    result.message = "the applied configuration must be an object";
    return result;
  }
  std::string patch_version = string_field(config, "apiVersion");
  if (patch_version != writer.api_version) {
    result.outcome = ApplyResult::Outcome::BadRequest;
    result.message =
        "Incorrect version specified in apply patch. Specified patch version: " + patch_version +
        ", expected: " + writer.api_version;
    return result;
  }
  if (const json* sent = managed_fields_of(config); sent != nullptr && !sent->is_null()) {
    result.outcome = ApplyResult::Outcome::BadRequest;
    result.message = "metadata.managedFields must be nil";
    return result;
  }

  Managers managers;
  if (live != nullptr) {
    if (const json* list = managed_fields_of(*live); list != nullptr) {
      auto decoded = decode(*list);
      if (!decoded) {
        result.outcome = ApplyResult::Outcome::Internal;
        result.message = "failed to decode managed fields: " + decoded.error();
        return result;
      }
      managers = std::move(*decoded);
    }
  }

  std::string manager = writer.manager.empty() ? "unknown" : writer.manager;
  std::string id = identifier(manager, "Apply", writer.api_version, writer.subresource);
  json live_object = live != nullptr ? without_managed_fields(*live) : json::object();
  json merged = merge(type, live_object, config);

  FieldSet last;
  std::optional<std::string> last_time;
  if (auto it = managers.find(id); it != managers.end()) {
    last = it->second.set;
    last_time = it->second.time;
  }
  managers[id] = Entry{manager,
                       "Apply",
                       writer.api_version,
                       writer.subresource,
                       last_time,
                       to_field_set(type, config).recursive_difference(writer.reset_fields)};
  merged = prune(type, merged, managers, last);

  const json before = live != nullptr ? live_object : zero_object(type);
  Comparison comparison = exclude(compare(type, before, merged), writer.reset_fields);
  std::vector<Conflict> conflicts = update_others(managers, comparison, id, force);
  if (!conflicts.empty()) {
    result.outcome = ApplyResult::Outcome::Conflict;
    result.conflicts = std::move(conflicts);
    return result;
  }
  if (auto it = managers.find(id); it != managers.end()) {
    it->second.set = it->second.set.difference(strip_set());
    if (it->second.set.empty()) {
      managers.erase(it);
    }
  }
  result.changed = live == nullptr || merged != live_object;
  if (result.changed) {
    if (auto it = managers.find(id); it != managers.end()) {
      it->second.time = writer.now;
    }
  }
  result.object = result.changed ? std::move(merged) : std::move(live_object);
  set_managed_fields(result.object, managers);
  return result;
}

}  // namespace

ApplyResult apply(const ObjectType& type, const json* live, const json& config,
                  const Writer& writer, bool force) {
  const std::size_t depth = std::max(live != nullptr ? json_depth(*live) : 0, json_depth(config));
  return with_stack_for(depth, [&] { return apply_of(type, live, config, writer, force); });
}

std::string describe_manager(const std::string& id) {
  json entry = json::parse(id, nullptr, false);
  if (!entry.is_object()) {
    return common::go_quote(id);
  }
  std::string out = common::go_quote(string_field(entry, "manager"));
  std::string subresource = string_field(entry, "subresource");
  if (!subresource.empty()) {
    out += " with subresource " + common::go_quote(subresource);
  }
  if (string_field(entry, "operation") == "Update") {
    out += " using " + string_field(entry, "apiVersion");
  }
  return out;
}

json conflict_status(const std::vector<Conflict>& conflicts) {
  json causes = json::array();
  for (const auto& conflict : conflicts) {
    causes.push_back({{"reason", "FieldManagerConflict"},
                      {"message", "conflict with " + describe_manager(conflict.manager)},
                      {"field", display_path(conflict.path)}});
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " +
              describe_manager(conflicts[0].manager) + ": " + display_path(conflicts[0].path);
  } else {
    std::map<std::string, std::vector<std::string>> by_manager;  // sorted like sort.Strings
    for (const auto& conflict : conflicts) {
      by_manager[conflict.manager].push_back(display_path(conflict.path));
    }
    std::string lines;
    for (const auto& [manager, paths] : by_manager) {
      lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") +
               describe_manager(manager) + ":";
      for (const auto& path : paths) {
        lines += "\n- " + path;
      }
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  }
  return status(409, "Conflict", message, {{"causes", causes}});
}

std::string default_field_manager(std::string_view user_agent) {
  std::string_view prefix = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (std::size_t i = 0; i < prefix.size();) {
    std::size_t width = 1;
    char32_t r = decode_rune(prefix, i, &width);
    std::string_view bytes = prefix.substr(i, width);
    i += width;
    if (!is_print(r)) {
      continue;
    }
    // Go writes an invalid byte as U+FFFD (3 bytes).
    std::string encoded =
        r == 0xfffd && width == 1 ? std::string("\xef\xbf\xbd") : std::string(bytes);
    if (out.size() + encoded.size() > kFieldManagerMaxLength) {
      break;
    }
    out += encoded;
  }
  return out;
}

std::optional<json> validate_field_manager(std::string_view options_kind,
                                           std::string_view field_manager, bool is_apply,
                                           bool force_set) {
  struct Error {
    std::string field, reason, body;
  };
  std::vector<Error> errors;
  if (!is_apply && force_set) {
    errors.push_back(
        {"force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch"});
  }
  if (is_apply && field_manager.empty()) {
    errors.push_back(
        {"fieldManager", "FieldValueRequired", "Required value: is required for apply patch"});
  }
  if (field_manager.size() > kFieldManagerMaxLength) {
    errors.push_back(
        {"fieldManager", "FieldValueTooLong",
         "Too long: may not be more than " + std::to_string(kFieldManagerMaxLength) + " bytes"});
  }
  for (std::size_t i = 0; i < field_manager.size();) {
    std::size_t width = 1;
    char32_t r = decode_rune(field_manager, i, &width);
    if (!is_print(r)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "invalid character U+%04X (at position %zu)",
                    static_cast<unsigned>(r), i);
      errors.push_back({"fieldManager", "FieldValueInvalid",
                        "Invalid value: " + common::go_quote(field_manager) + ": " + buf});
    }
    i += width;
  }
  if (errors.empty()) {
    return std::nullopt;
  }
  json causes = json::array();
  std::vector<std::string> texts;
  for (const auto& error : errors) {
    causes.push_back({{"reason", error.reason}, {"message", error.body}, {"field", error.field}});
    std::string text = error.field + ": " + error.body;
    if (std::find(texts.begin(), texts.end(), text) == texts.end()) {
      texts.push_back(text);  // the aggregate drops duplicate messages
    }
  }
  std::string joined = texts.size() == 1 ? texts[0] : "[";
  if (texts.size() > 1) {
    for (std::size_t i = 0; i < texts.size(); ++i) {
      joined += (i == 0 ? "" : ", ") + texts[i];
    }
    joined += "]";
  }
  std::string kind(options_kind);
  return status(422, "Invalid", kind + ".meta.k8s.io \"\" is invalid: " + joined,
                {{"group", "meta.k8s.io"}, {"kind", kind}, {"causes", causes}});
}

}  // namespace apiserver::endpoints::patch
