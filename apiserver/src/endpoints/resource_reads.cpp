// The resource handler's reads: get, list (pages, continue tokens, resourceVersion semantics,
// Tables) and watch.
#include "endpoints/resources.h"

#include <nlohmann/json.hpp>

#include "endpoints/accept.h"
#include "endpoints/body_decode.h"
#include "endpoints/collection.h"
#include "endpoints/continue_token.h"
#include "endpoints/delete_options.h"
#include "endpoints/field_checks.h"
#include "endpoints/object_answers.h"
#include "endpoints/query_params.h"
#include "endpoints/served_json.h"
#include "endpoints/status.h"
#include "endpoints/table_request.h"
#include "endpoints/watch_stream.h"
#include "endpoints/write_options.h"
#include "errors/result.h"
#include "errors/status.h"
#include "registry/crd_schema.h"
#include "registry/custom_resources.h"
#include "registry/generic/resource_errors.h"
#include "registry/generic/write_steps.h"
#include "registry/json_access.h"
#include "registry/objects.h"
#include "registry/served_form.h"
#include "registry/table.h"

namespace apiserver::endpoints {

using nlohmann::json;
using registry::Resource;

namespace {

constexpr int kDefaultWatchTimeoutSeconds = 1800;
// Open watches one user may hold. Each holds a store watcher and its queue of events; upstream
// leaves the bound to priority and fairness, which the sandbox does not have. A thousand is far
// above what real clients open (kubectl one, a controller a few per kind, the console one per
// kind it shows) and still bounds the memory one user can pin.
constexpr size_t kMaxWatchesPerUser = 1000;

// Where a list reads, as upstream's storage decides it: a continue token's revision and key, the
// exact resourceVersion (Exact, or the legacy exact read of a paged list), else the newest.
// Returns the answer when the parameters do not allow the read.
std::optional<http::Response> list_revision(const ListOptions& options, const std::string& prefix,
                                            int64_t current, int64_t& revision,
                                            std::string& start_key) {
  const std::string& rv = options.resource_version;
  if (!options.continue_token.empty()) {
    auto token = decode_continue(options.continue_token, prefix);
    if (!token) {
      return bad_request("invalid continue token: " + token.error());
    }
    if (!rv.empty() && rv != "0") {
      return bad_request("specifying resource version is not allowed when using continue");
    }
    revision = token->revision;
    start_key = token->start_key;
    return std::nullopt;
  }
  const bool exact =
      options.resource_version_match == "Exact" ||
      (options.limit > 0 && options.resource_version_match.empty() && !rv.empty() && rv != "0");
  auto parsed = parse_resource_version(rv);
  if (!parsed) {
    const std::string error = registry::render_field_errors({parsed.error()});
    // Exact reads go to the store, which answers 400; the watch cache's parse error has no
    // status and becomes a 500.
    return exact ? bad_request("invalid resource version: " + error)
                 : status_with_details(500, "", error, json());
  }
  if (*parsed > static_cast<uint64_t>(current)) {
    return too_large_resource_version(*parsed, current);
  }
  if (exact) {
    revision = static_cast<int64_t>(*parsed);
  }
  return std::nullopt;
}

// A stored object as `r` serves it: custom resources are defaulted when read back, as upstream
// does when it decodes them from storage (a default added to the CRD later shows on reads), and
// a kind stored in another group's form is converted (registry/served_form.h). `stored` keeps
// its revision.
std::optional<errors::Status> default_on_read(const Resource& r, storage::Object& stored) {
  auto text = registry::served_text(r, stored.value);
  if (!text) {
    return text.error();
  }
  if (*text) {
    stored.value = std::move(**text);
  }
  if (!r.custom || !r.custom->structural) {
    return std::nullopt;
  }
  json object = json::parse(stored.value, nullptr, false);
  if (!object.is_object()) {
    return std::nullopt;
  }
  const json before = object;
  r.custom->structural->apply_defaults(object);
  if (object != before) {
    stored.value = object.dump();
  }
  return std::nullopt;
}

// The items of a list as `r` serves them. Custom resources stored at other versions are
// converted together, as upstream converts a list (one webhook call for the whole page).
std::optional<errors::Status> serve_items(const Resource& r, std::vector<storage::Object>& items) {
  if (r.custom && registry::stored_in_other_form(r)) {
    std::vector<json> objects;
    std::vector<size_t> at;
    for (size_t i = 0; i < items.size(); ++i) {
      json object = json::parse(items[i].value, nullptr, false);
      if (object.is_object() && object.value("apiVersion", std::string()) != r.group_version()) {
        objects.push_back(std::move(object));
        at.push_back(i);
      }
    }
    std::vector<json*> pointers;
    for (auto& object : objects) {
      pointers.push_back(&object);
    }
    if (auto error = registry::to_served_forms(r, std::move(pointers))) {
      return error;
    }
    for (size_t n = 0; n < at.size(); ++n) {
      items[at[n]].value = objects[n].dump();
    }
  }
  for (auto& item : items) {
    if (auto error = default_on_read(r, item)) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace

errors::Result<registry::TableOptions> table_options(const http::Request& request) {
  auto include = registry::parse_include_object(request.query_value("includeObject"));
  if (!include) {
    return errors::bad_request(include.error());
  }
  registry::TableOptions options;
  options.include = *include;
  options.now = std::chrono::system_clock::now();
  return options;
}

http::Response ResourceHandler::get(const Resource& r, const RequestInfo& info,
                                    const http::Request& request) {
  storage::Object stored;
  if (auto error = storage_.get(r.storage_key(info.namespace_, info.name), stored)) {
    return storage_failure(r, info.name, error);
  }
  if (auto error = default_on_read(r, stored)) {
    return error->response();
  }
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request);
    if (!options) {
      return options.error().response();
    }
    return json_response(200, registry::to_table_for_object(r, served_object(stored), *options));
  }
  return object_response(200, stored.value, stored.mod_revision);
}

http::Response ResourceHandler::list(const Resource& r, const RequestInfo& info,
                                     const http::Request& request) {
  std::string prefix = list_prefix(r, info.namespace_);
  auto selection = parse_selection(r, request);
  if (!selection) {
    return selection.error().response();
  }
  auto options = decode_list_options(request, false);
  if (!options) {
    return options.error().response();
  }
  int64_t limit = std::max<int64_t>(0, options->limit);
  int64_t revision = 0;
  std::string start_key;
  const std::string& token = options->continue_token;
  if (auto answer =
          list_revision(*options, prefix, storage_.current_revision(), revision, start_key)) {
    return *answer;
  }
  // Read pages at one revision until `limit` objects match (or the prefix ends).
  std::vector<storage::Object> kept;
  bool more = false;
  int64_t remaining = 0;
  int64_t read_at = revision;
  std::string cursor = start_key;
  while (true) {
    storage::ListResult page;
    int64_t page_limit = selection->empty() || limit == 0 ? limit : std::max<int64_t>(limit, 256);
    if (auto error = storage_.list(prefix, cursor, page_limit, read_at, page)) {
      if (error.kind == storage::ErrorKind::Expired && !token.empty()) {
        return status_with_details(
            410, "Expired",
            "The provided continue parameter is too old to display a consistent list result. "
            "You can start a new list without the continue parameter.",
            json());
      }
      return storage_failure(r, "", error);
    }
    read_at = page.revision;
    // Taken before the matching items are moved out of the page.
    std::string last_key = page.items.empty() ? std::string() : page.items.back().key;
    size_t used = 0;
    for (auto& item : page.items) {
      ++used;
      if (!selection->empty() && !selection->matches(served_object(item))) {
        continue;
      }
      kept.push_back(std::move(item));
      if (limit > 0 && static_cast<int64_t>(kept.size()) == limit) {
        break;
      }
    }
    bool page_left = used < page.items.size() || page.more;
    if (limit > 0 && static_cast<int64_t>(kept.size()) == limit) {
      more = page_left;
      remaining = page.remaining + static_cast<int64_t>(page.items.size() - used);
      break;
    }
    if (!page.more || page.items.empty()) {
      break;
    }
    cursor = last_key + std::string(1, '\0');
  }
  if (auto error = serve_items(r, kept)) {
    return error->response();
  }
  json metadata = {{"resourceVersion", std::to_string(read_at)}};
  if (more && !kept.empty()) {
    // Resume just after the last key returned: append a zero byte, as upstream does.
    std::string next = kept.back().key.substr(prefix.size()) + std::string(1, '\0');
    metadata["continue"] = encode_continue(read_at, next);
    if (selection->empty()) {
      metadata["remainingItemCount"] = remaining;  // upstream gives no count with selectors
    }
  }
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request);
    if (!options) {
      return options.error().response();
    }
    options->resource_version = metadata["resourceVersion"];
    options->continue_token = metadata.value("continue", std::string());
    if (metadata.contains("remainingItemCount")) {
      options->remaining_item_count = metadata["remainingItemCount"].get<int64_t>();
    }
    std::vector<json> objects;
    objects.reserve(kept.size());
    for (const auto& item : kept) {
      objects.push_back(served_object(item));
    }
    return json_response(200, registry::to_table(r, objects, *options));
  }
  // The body as dump() would write {"apiVersion", "items", "kind", "metadata"}, the items made
  // from their stored text; upstream's items of built-in kinds carry no apiVersion/kind.
  size_t size = 128;
  for (const auto& item : kept) {
    size += item.value.size() + 32;
  }
  http::Response response;
  response.set_header("Content-Type", "application/json");
  std::string& body = response.body;
  body.reserve(size);
  body += "{\"apiVersion\":" + json(r.group_version()).dump() + ",\"items\":[";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) {
      body += ',';
    }
    // Custom resources are unstructured upstream: their items keep apiVersion and kind.
    if (!append_served_json(kept[i].value, kept[i].mod_revision, !r.custom, body)) {
      json object = served_object(kept[i]);
      if (!r.custom) {
        object.erase("apiVersion");
        object.erase("kind");
      }
      body += object.dump();
    }
  }
  body += "],\"kind\":" + json(r.kind + "List").dump() + ",\"metadata\":" + metadata.dump() + "}";
  return response;
}

http::Response ResourceHandler::watch(const Resource& r, const RequestInfo& info,
                                      const http::Request& request) {
  std::string prefix = info.name.empty() ? list_prefix(r, info.namespace_)
                                         : r.storage_key(info.namespace_, info.name);
  auto selection = parse_selection(r, request);
  if (!selection) {
    return selection.error().response();
  }
  WatchStream::Presenter present;
  if (wants_table(request.header("Accept"))) {
    auto options = table_options(request);
    if (!options) {
      return options.error().response();
    }
    present = [resource = r, options = *options](const json& object) -> errors::Result<json> {
      registry::TableOptions now = options;
      now.now = std::chrono::system_clock::now();
      if (resource.custom && resource.custom->structural) {
        json defaulted = object;
        resource.custom->structural->apply_defaults(defaulted);
        return registry::to_table_for_object(resource, defaulted, now);
      }
      return registry::to_table_for_object(resource, object, now);
    };
  } else if (r.custom && r.custom->structural) {
    present = [schema = r.custom->structural](const json& object) -> errors::Result<json> {
      json defaulted = object;
      schema->apply_defaults(defaulted);
      return defaulted;
    };
  }
  if (registry::stored_in_other_form(r)) {
    // Selectors match the stored form; what goes out is the served one.
    present = [resource = r,
               then = std::move(present)](const json& object) -> errors::Result<json> {
      json served = object;
      if (auto error = registry::to_served_form(resource, served)) {
        return *error;
      }
      if (then) {
        return then(served);
      }
      return served;
    };
  }
  auto options = decode_list_options(request, true);
  if (!options) {
    return options.error().response();
  }
  auto rv = parse_resource_version(options->resource_version);
  if (!rv) {
    // The watch cache's parse error is a storage error without a status, which the watch
    // handler passes on as a 500.
    return status_with_details(500, "", registry::render_field_errors({rv.error()}), json());
  }
  // Past the newest revision the store could ever reach: upstream would wait for it, then give up.
  if (*rv >= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return too_large_resource_version(*rv, storage_.current_revision());
  }
  if (ticker_->count_for(request.user) >= kMaxWatchesPerUser) {
    http::Response busy =
        status_with_details(429, "TooManyRequests", "Too many requests, please try again later.",
                            {{"retryAfterSeconds", 1}});
    busy.set_header("Retry-After", "1");
    return busy;
  }
  std::deque<std::string> initial;
  int64_t from = 0;
  if (*rv == 0) {
    // The current state as ADDED events, then every change after it.
    storage::ListResult result;
    if (auto error = storage_.list(prefix, "", 0, 0, result)) {
      return storage_failure(r, info.name, error);
    }
    for (const auto& item : result.items) {
      if (!info.name.empty() && item.key != prefix) {
        continue;
      }
      if (selection->empty() && !present) {
        std::string line = "{\"type\":\"ADDED\",\"object\":";
        if (append_served_json(item.value, item.mod_revision, false, line)) {
          initial.push_back(line + "}\n");
          continue;
        }
      }
      json object = served_object(item);
      if (!selection->empty() && !selection->matches(object)) {
        continue;
      }
      if (present) {
        auto presented = present(object);
        if (!presented) {
          return presented.error().response();
        }
        object = std::move(*presented);
      }
      nlohmann::ordered_json event = {{"type", "ADDED"}, {"object", std::move(object)}};
      initial.push_back(event.dump() + "\n");
    }
    from = result.revision + 1;
  } else {
    from = static_cast<int64_t>(*rv) + 1;
  }
  const int64_t timeout =
      watch_timeout_seconds(options->timeout_seconds, kDefaultWatchTimeoutSeconds);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  auto watcher = storage_.watch(r.etcd_prefix + "/", prefix, !info.name.empty(), from);
  json bookmark_type;
  if (query_flag(request, "allowWatchBookmarks")) {
    bookmark_type = {{"kind", r.kind}, {"apiVersion", r.group_version()}};
  }
  auto stream =
      std::make_shared<WatchStream>(watcher, std::move(initial), deadline, bookmark_type, from - 1,
                                    std::move(*selection), std::move(present), request.user);
  ticker_->add(stream);
  http::Response response;
  response.status = 200;
  response.set_header("Content-Type", "application/json");
  response.set_header("Transfer-Encoding", "chunked");
  response.stream = stream;
  return response;
}

}  // namespace apiserver::endpoints
