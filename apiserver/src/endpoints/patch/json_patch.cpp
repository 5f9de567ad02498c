#include "endpoints/patch/json_patch.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "endpoints/patch/deep_stack.h"
#include "registry/go_text.h"
#include "registry/go_values.h"

namespace apiserver::endpoints::patch {

namespace {

using nlohmann::json;
using Error = std::optional<std::string>;

constexpr const char* kMissing = "missing value";
constexpr const char* kGenericInvalid =
    "the server rejected our request due to an error in our request";

PatchError bad_request(std::string text) {
  return PatchError{400, "BadRequest", text, text};
}

PatchError unprocessable(std::string text) {
  return PatchError{422, "Invalid", kGenericInvalid, std::move(text)};
}

std::string invalid_index(int64_t idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced";
}

// RFC 6901 unescaping as evanphx does it: one left-to-right pass replacing ~1 and ~0.
std::string decode_key(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '1' || token[i + 1] == '0')) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(path.substr(start));
      return parts;
    }
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

// The number of reference tokens in `path`: the depth of the container a value lands in.
size_t path_depth(std::string_view path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

// Upstream decodes the patched object with Go's decoder, which stops at kMaxPatchedDepth levels;
// a patch may build deeper documents (a copy into its own subtree doubles the depth), so each
// operation's result is checked as it lands. The kind byte is what Go's scanner names.
Error too_deep(const json& value) {
  return std::string("couldn't get version/kind; json parse error: invalid character '") +
         (value.is_array() ? '[' : '{') + "' exceeded max depth";
}

Error check_depth(std::string_view path, const json& value) {
  if (path_depth(path) + json_depth(value) > kMaxPatchedDepth) {
    return too_deep(value);
  }
  return {};
}

// The size of Go's compact encoding of `v` (encoding/json with HTML escaping, Go >= 1.22).
int64_t go_json_size(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return 4;
    case json::value_t::boolean:
      return v.get<bool>() ? 4 : 5;
    case json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      int64_t size = 2;
      for (size_t i = 0; i < s.size();) {
        size_t width = 1;
        const char32_t r = registry::decode_rune(s, i, width);
        if (r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' ||
            r == '\f') {
          size += 2;
        } else if (r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029 ||
                   (r == 0xFFFD && width == 1)) {
          size += 6;
        } else {
          size += static_cast<int64_t>(width);
        }
        i += width;
      }
      return size;
    }
    case json::value_t::array: {
      int64_t size = 2 + (v.empty() ? 0 : static_cast<int64_t>(v.size()) - 1);
      for (const auto& item : v) {
        size += go_json_size(item);
      }
      return size;
    }
    case json::value_t::object: {
      int64_t size = 2 + (v.empty() ? 0 : static_cast<int64_t>(v.size()) - 1);
      for (auto it = v.begin(); it != v.end(); ++it) {
        size += go_json_size(json(it.key())) + 1 + go_json_size(it.value());
      }
      return size;
    }
    default:
      return static_cast<int64_t>(v.dump().size());
  }
}

// Operation member access with evanphx's texts. A null member counts as absent.
struct StringField {
  bool ok = false;
  std::string value;
  std::string error;  // when !ok
};

StringField string_field(const json& op, const char* name, const char* missing_text) {
  const auto it = op.find(name);
  if (it == op.end() || it->is_null()) {
    return {false, {}, std::string(missing_text) + ": " + kMissing};
  }
  if (!it->is_string()) {
    return {
        false,
        {},
        "json: cannot unmarshal " + registry::go_json_kind(*it) + " into Go value of type string"};
  }
  return {true, it->get<std::string>(), {}};
}

StringField path_of(const json& op) {
  return string_field(op, "path", "operation missing path field");
}

StringField from_of(const json& op) {
  return string_field(op, "from", "operation, missing from field");
}

json value_of(const json& op) {
  const auto it = op.find("value");
  return it == op.end() ? json() : *it;
}

bool has_value(const json& op) {
  const auto it = op.find("value");
  return it != op.end() && !it->is_null();
}

bool is_container(const json& v) {
  return v.is_object() || v.is_array();
}

// The element `key` names in `container`: nullptr for a missing (or null) object member, an error
// for an array index that does not parse or is out of range.
Error get(json& container, const std::string& key, json*& out) {
  out = nullptr;
  if (container.is_object()) {
    const auto it = container.find(key);
    if (it != container.end() && !it->is_null()) {
      out = &*it;
    }
    return {};
  }
  const registry::GoAtoi parsed = registry::go_atoi(key);
  if (!parsed.error.empty()) {
    return parsed.error;
  }
  int64_t idx = parsed.value;
  const auto len = static_cast<int64_t>(container.size());
  if (idx < 0) {
    if (idx < -len) {
      return invalid_index(idx);
    }
    idx += len;
  }
  if (idx >= len) {
    return invalid_index(idx);
  }
  json& element = container[static_cast<size_t>(idx)];
  if (!element.is_null()) {
    out = &element;
  }
  return {};
}

Error add(json& container, const std::string& key, json value) {
  if (container.is_object()) {
    container[key] = std::move(value);
    return {};
  }
  if (key == "-") {
    container.push_back(std::move(value));
    return {};
  }
  const registry::GoAtoi parsed = registry::go_atoi(key);
  if (!parsed.error.empty()) {
    return "value was not a proper array index: '" + key + "': " + parsed.error;
  }
  int64_t idx = parsed.value;
  const auto grown = static_cast<int64_t>(container.size()) + 1;
  if (idx >= grown) {
    return invalid_index(idx);
  }
  if (idx < 0) {
    if (idx < -grown) {
      return invalid_index(idx);
    }
    idx += grown;
  }
  container.insert(container.begin() + idx, std::move(value));
  return {};
}

Error remove(json& container, const std::string& key) {
  if (container.is_object()) {
    if (container.erase(key) == 0) {
      return "Unable to remove nonexistent key: " + key + ": " + kMissing;
    }
    return {};
  }
  const registry::GoAtoi parsed = registry::go_atoi(key);
  if (!parsed.error.empty()) {
    return parsed.error;
  }
  int64_t idx = parsed.value;
  const auto len = static_cast<int64_t>(container.size());
  if (idx >= len) {
    return invalid_index(idx);
  }
  if (idx < 0) {
    if (idx < -len) {
      return invalid_index(idx);
    }
    idx += len;
  }
  container.erase(static_cast<size_t>(idx));
  return {};
}

// Precondition: get(container, key) succeeded.
void set(json& container, const std::string& key, json value) {
  if (container.is_object()) {
    container[key] = std::move(value);
    return;
  }
  int64_t idx = registry::go_atoi(key).value;
  if (idx < 0) {
    idx += static_cast<int64_t>(container.size());
  }
  container[static_cast<size_t>(idx)] = std::move(value);
}

// The container holding the last token of `path`, and that token unescaped (evanphx's
// findObject). container is nullptr when the path is shorter than one token or a token before the
// last does not name an object or array.
struct Target {
  json* container = nullptr;
  std::string key;
};

Target find_object(json& root, std::string_view path) {
  const auto parts = split_path(path);
  if (parts.size() < 2 || !is_container(root)) {
    return {};
  }
  json* doc = &root;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    json* next = nullptr;
    if (get(*doc, decode_key(parts[i]), next) || next == nullptr || !is_container(*next)) {
      return {};
    }
    doc = next;
  }
  return {doc, decode_key(parts.back())};
}

class Applier {
 public:
  explicit Applier(json document) : doc_(std::move(document)) {}

  Error apply(const json& op) {
    std::string kind = "unknown";
    if (op.is_object()) {
      const auto it = op.find("op");
      if (it != op.end() && it->is_string()) {
        kind = it->get<std::string>();
      }
    }
    if (kind == "add") {
      return do_add(op);
    }
    if (kind == "remove") {
      return do_remove(op);
    }
    if (kind == "replace") {
      return do_replace(op);
    }
    if (kind == "move") {
      return do_move(op);
    }
    if (kind == "test") {
      return do_test(op);
    }
    if (kind == "copy") {
      return do_copy(op);
    }
    return "Unexpected kind: " + kind;
  }

  json take() { return std::move(doc_); }

 private:
  Error do_add(const json& op) {
    const StringField path = path_of(op);
    if (!path.ok) {
      return std::string("add operation failed to decode path: ") + kMissing;
    }
    const Target t = find_object(doc_, path.value);
    if (t.container == nullptr) {
      return "add operation does not apply: doc is missing path: \"" + path.value +
             "\": " + kMissing;
    }
    json value = value_of(op);
    if (Error e = check_depth(path.value, value)) {
      return e;
    }
    if (Error e = add(*t.container, t.key, std::move(value))) {
      return "error in add for path: '" + path.value + "': " + *e;
    }
    return {};
  }

  Error do_remove(const json& op) {
    const StringField path = path_of(op);
    if (!path.ok) {
      return std::string("remove operation failed to decode path: ") + kMissing;
    }
    const Target t = find_object(doc_, path.value);
    if (t.container == nullptr) {
      return "remove operation does not apply: doc is missing path: \"" + path.value +
             "\": " + kMissing;
    }
    if (Error e = remove(*t.container, t.key)) {
      return "error in remove for path: '" + path.value + "': " + *e;
    }
    return {};
  }

  Error do_replace(const json& op) {
    const StringField path = path_of(op);
    if (!path.ok) {
      return "replace operation failed to decode path: " + path.error;
    }
    if (path.value.empty()) {
      json value = value_of(op);
      // v4.12.0 wraps a nil error for scalar values, which returns nil: the operation is a no-op.
      if (is_container(value) || value.is_null()) {
        doc_ = std::move(value);
      }
      return {};
    }
    const Target t = find_object(doc_, path.value);
    if (t.container == nullptr) {
      return "replace operation does not apply: doc is missing path: " + path.value + ": " +
             kMissing;
    }
    json* existing = nullptr;
    if (get(*t.container, t.key, existing)) {
      return "replace operation does not apply: doc is missing key: " + path.value + ": " +
             kMissing;
    }
    json value = value_of(op);
    if (Error e = check_depth(path.value, value)) {
      return e;
    }
    set(*t.container, t.key, std::move(value));
    return {};
  }

  // What op's "from" names, for a `verb` operation (move, copy).
  struct Source {
    Target t;    // the container holding it and its key
    json value;  // a copy of it; null when there is none
    bool found = false;
  };

  Error take_from(const json& op, const std::string& verb, Source& source) {
    const StringField from = from_of(op);
    if (!from.ok) {
      return verb + " operation failed to decode from: " + from.error;
    }
    source.t = find_object(doc_, from.value);
    if (source.t.container == nullptr) {
      return verb + " operation does not apply: doc is missing from path: " + from.value + ": " +
             kMissing;
    }
    json* found = nullptr;
    if (Error e = get(*source.t.container, source.t.key, found)) {
      // Upstream words the two apart: a move names the key, a copy the whole from path.
      return verb == "move" ? "error in move for path: '" + source.t.key + "': " + *e
                            : "error in copy for from: '" + from.value + "': " + *e;
    }
    source.found = found != nullptr;
    source.value = found != nullptr ? *found : json();
    return {};
  }

  // The container and key that the decoded `path` names, for a `verb` operation (move, copy).
  Error find_destination(const std::string& verb, const std::string& path, Target& t) {
    t = find_object(doc_, path);
    if (t.container == nullptr) {
      return verb + " operation does not apply: doc is missing destination path: " + path + ": " +
             kMissing;
    }
    return {};
  }

  Error do_move(const json& op) {
    Source source;
    if (Error e = take_from(op, "move", source)) {
      return e;
    }
    if (Error e = remove(*source.t.container, source.t.key)) {
      return "error in move for path: '" + source.t.key + "': " + *e;
    }
    const StringField path = path_of(op);
    if (!path.ok) {
      return "move operation failed to decode path: " + path.error;
    }
    Target to;
    if (Error e = find_destination("move", path.value, to)) {
      return e;
    }
    if (Error e = check_depth(path.value, source.value)) {
      return e;
    }
    if (Error e = add(*to.container, to.key, std::move(source.value))) {
      return "error in move for path: '" + path.value + "': " + *e;
    }
    return {};
  }

  Error do_test(const json& op) {
    const StringField path = path_of(op);
    if (!path.ok) {
      return "test operation failed to decode path: " + path.error;
    }
    const std::string failed = "testing value " + path.value + " failed: test failed";
    if (path.value.empty()) {
      if (doc_ == value_of(op)) {
        return {};
      }
      return failed;
    }
    const Target t = find_object(doc_, path.value);
    if (t.container == nullptr) {
      return "test operation does not apply: is missing path: " + path.value + ": " + kMissing;
    }
    json* found = nullptr;
    if (Error e = get(*t.container, t.key, found)) {
      return "error in test for path: '" + path.value + "': " + *e;
    }
    if (found == nullptr) {
      if (!has_value(op)) {
        return {};
      }
      return failed;
    }
    if (!has_value(op) || *found != value_of(op)) {
      return failed;
    }
    return {};
  }

  Error do_copy(const json& op) {
    Source source;
    if (Error e = take_from(op, "copy", source)) {
      return e;
    }
    const StringField path = path_of(op);
    if (!path.ok) {
      return std::string("copy operation failed to decode path: ") + kMissing;
    }
    Target to;
    if (Error e = find_destination("copy", path.value, to)) {
      return e;
    }
    copied_ += source.found ? go_json_size(source.value) : 0;
    if (copied_ > kJsonPatchMaxCopyBytes) {
      return "Unable to complete the copy, the accumulated size increase of copy is " +
             std::to_string(copied_) + ", exceeding the limit " +
             std::to_string(kJsonPatchMaxCopyBytes);
    }
    if (Error e = check_depth(path.value, source.value)) {
      return e;
    }
    if (Error e = add(*to.container, to.key, std::move(source.value))) {
      return "error while adding value during copy: " + *e;
    }
    return {};
  }

  json doc_;
  int64_t copied_ = 0;
};

// How deep the document may get while `patch` runs: a value lands below its path's tokens, and
// a copy or move may take the document's deepest subtree along.
size_t depth_bound(const json& document, const json& patch) {
  size_t bound = json_depth(document);
  const size_t values = json_depth(patch);
  for (const json& op : patch) {
    const auto path = op.is_object() ? op.find("path") : op.end();
    if (path == op.end() || !path->is_string()) {
      continue;
    }
    const size_t tokens = path_depth(path->get_ref<const std::string&>());
    bound = std::min(kMaxPatchedDepth, std::max(bound, tokens + std::max(bound, values)));
  }
  return bound;
}

}  // namespace

std::variant<json, PatchError> apply_json_patch(const json& document, const json& patch) {
  if (!patch.is_null() && !patch.is_array()) {
    return bad_request("json: cannot unmarshal " + registry::go_json_kind(patch) +
                       " into Go value of type jsonpatch.Patch");
  }
  if (patch.is_array()) {
    for (const auto& op : patch) {
      if (!op.is_object() && !op.is_null()) {
        return bad_request("json: cannot unmarshal " + registry::go_json_kind(op) +
                           " into Go value of type jsonpatch.Operation");
      }
    }
    if (patch.size() > kMaxJsonPatchOperations) {
      const std::string text = "The allowed maximum operations in a JSON patch is " +
                               std::to_string(kMaxJsonPatchOperations) + ", got " +
                               std::to_string(patch.size());
      return PatchError{413, "RequestEntityTooLarge", "Request entity too large: " + text, text};
    }
  }
  if (!is_container(document) && !document.is_null()) {
    return unprocessable("json: cannot unmarshal " + registry::go_json_kind(document) +
                         " into Go value of type jsonpatch.partialDoc");
  }
  return with_stack_for(depth_bound(document, patch), [&]() -> std::variant<json, PatchError> {
    Applier applier(document);
    if (patch.is_array()) {
      for (const auto& op : patch) {
        if (Error e = applier.apply(op)) {
          return unprocessable(std::move(*e));
        }
      }
    }
    return applier.take();
  });
}

std::variant<std::vector<std::string>, PatchError> json_patch_strict_errors(const json& patch) {
  std::vector<std::string> problems;
  if (patch.is_null()) {
    return problems;
  }
  const auto type_error = [](const std::string& what) {
    return bad_request("error decoding patch: json: cannot unmarshal " + what);
  };
  if (!patch.is_array()) {
    return type_error(registry::go_json_kind(patch) +
                      " into Go value of type []handlers.jsonPatchOp");
  }
  for (size_t i = 0; i < patch.size(); ++i) {
    const json& op = patch[i];
    if (op.is_null()) {
      continue;
    }
    if (!op.is_object()) {
      return type_error(registry::go_json_kind(op) + " into Go value of type handlers.jsonPatchOp");
    }
    for (auto it = op.begin(); it != op.end(); ++it) {
      const std::string& key = it.key();
      if (key == "op" || key == "path" || key == "from") {
        if (!it->is_string() && !it->is_null()) {
          return type_error(registry::go_json_kind(*it) + " into Go struct field jsonPatchOp." +
                            key + " of type string");
        }
      } else if (key != "value") {
        // Upstream also drops repeated texts; index and name make every text here distinct.
        if (problems.size() < 100) {
          problems.push_back("json patch unknown field " +
                             registry::go_quote("[" + std::to_string(i) + "]." + key));
        }
      }
    }
  }
  return problems;
}

}  // namespace apiserver::endpoints::patch
