#include "client/informer.h"

#include <random>
#include <utility>

#include "apiserver/log.h"
#include "common/guard.h"

namespace cluster {
namespace {

// The largest watch event line an informer takes (far above the API's own object limits).
constexpr size_t kMaxEventBytes = size_t{64} << 20;

// client-go's reflector: each watch asks for a timeout between 5 and 10 minutes, so that
// watches of many clients do not all end together.
std::string watch_timeout_seconds() {
  thread_local std::mt19937 random{std::random_device{}()};
  return std::to_string(300 + std::uniform_int_distribution<int>(0, 300)(random));
}

const json* field(const json& object, const char* name) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string string_field(const json* object, const char* name) {
  const json* value = object != nullptr ? field(*object, name) : nullptr;
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

}  // namespace

std::string resource_version_of(const json& object) {
  return string_field(field(object, "metadata"), "resourceVersion");
}

std::string Informer::key_of(const json& object) {
  const json* metadata = field(object, "metadata");
  const std::string namespace_ = string_field(metadata, "namespace");
  const std::string name = string_field(metadata, "name");
  return namespace_.empty() ? name : namespace_ + "/" + name;
}

Informer::Informer(const Client& client, ResourceRef resource, Query selectors,
                   const common::Clock& clock)
    : client_(client),
      resource_(std::move(resource)),
      selectors_(std::move(selectors)),
      clock_(clock) {}

Informer::~Informer() {
  stop();
}

void Informer::add_handlers(InformerHandlers handlers) {
  handlers_.push_back(std::move(handlers));
}

void Informer::start() {
  while (!stopping_ && !relist()) {
    wait(std::chrono::seconds(1));
  }
  thread_ = std::thread([this] { follow(); });
}

void Informer::stop() {
  stopping_ = true;
  std::shared_ptr<apiserver::http::ChunkStream> stream;
  {
    std::lock_guard lock(mu_);
    woken_ = true;
    stream = stream_;
  }
  wake_.notify_all();
  if (stream) {
    stream->close();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
}

ObjectPtr Informer::get(const std::string& namespace_, const std::string& name) const {
  std::shared_lock lock(cache_mu_);
  auto it = cache_.find(namespace_.empty() ? name : namespace_ + "/" + name);
  return it == cache_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::list(const std::string& namespace_) const {
  std::vector<ObjectPtr> out;
  std::shared_lock lock(cache_mu_);
  if (namespace_.empty()) {
    out.reserve(cache_.size());
    for (const auto& [key, object] : cache_) {
      out.push_back(object);
    }
    return out;
  }
  const std::string prefix = namespace_ + "/";
  for (auto it = cache_.lower_bound(prefix);
       it != cache_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(it->second);
  }
  return out;
}

void Informer::wait(std::chrono::milliseconds delay) {
  std::unique_lock lock(mu_);
  clock_.wait_until(lock, wake_, clock_.now() + delay, [this] { return woken_ || stopping_; });
  woken_ = false;
}

bool Informer::relist() {
  Query query = selectors_;
  auto listed = client_.get(resource_.collection(), query);
  if (!listed) {
    apiserver::log::error("informer " + resource_.resource +
                          ": list failed: " + listed.error().message);
    return false;
  }
  ++lists_;
  std::map<std::string, ObjectPtr> fresh;
  if (const json* items = field(*listed, "items"); items != nullptr && items->is_array()) {
    const std::string kind = string_field(&*listed, "kind");
    for (const json& item : *items) {
      if (!item.is_object())
        continue;
      json object = item;
      // List items carry no type; the objects the handlers see always do.
      if (kind.size() > 4 && kind.ends_with("List")) {
        object["kind"] = kind.substr(0, kind.size() - 4);
        object["apiVersion"] = resource_.api_version();
      }
      std::string key = key_of(object);
      fresh.emplace(std::move(key), std::make_shared<const json>(std::move(object)));
    }
  }
  std::map<std::string, ObjectPtr> old;
  {
    std::unique_lock lock(cache_mu_);
    old.swap(cache_);
    cache_ = fresh;
  }
  resource_version_ = string_field(field(*listed, "metadata"), "resourceVersion");
  for (const auto& [key, object] : fresh) {
    auto was = old.find(key);
    for (const InformerHandlers& h : handlers_) {
      if (was == old.end()) {
        if (h.added)
          h.added(*object);
      } else if (resource_version_of(*was->second) != resource_version_of(*object)) {
        if (h.updated)
          h.updated(*was->second, *object);
      }
    }
  }
  for (const auto& [key, object] : old) {
    if (fresh.count(key) == 0) {
      for (const InformerHandlers& h : handlers_) {
        if (h.deleted)
          h.deleted(*object);
      }
    }
  }
  return true;
}

void Informer::follow() {
  bool expired = false;
  while (!stopping_) {
    // No exception leaves the thread: a failed round is logged and the informer lists again.
    const bool returned = common::run_guarded(
        [&] {
          if (expired) {
            if (!relist()) {
              wait(std::chrono::seconds(1));
              return;
            }
            expired = false;
          }
          watch_once(expired);
        },
        [&](std::string&& text) {
          apiserver::log::error("informer " + resource_.resource + ": " + text + "; listing again");
        });
    if (!returned) {
      expired = true;
      wait(std::chrono::seconds(1));
    }
  }
}

void Informer::watch_once(bool& expired) {
  Query query = selectors_;
  query["resourceVersion"] = resource_version_;
  query["allowWatchBookmarks"] = "true";
  query["timeoutSeconds"] = watch_timeout_seconds();
  auto opened = client_.watch(resource_.collection(), query);
  if (!opened) {
    if (opened.error().code == 410) {
      expired = true;
    } else {
      apiserver::log::error("informer " + resource_.resource +
                            ": watch failed: " + opened.error().message);
      wait(std::chrono::seconds(1));
    }
    return;
  }
  std::shared_ptr<apiserver::http::ChunkStream> stream = *opened;
  {
    std::lock_guard lock(mu_);
    stream_ = stream;
  }
  stream->set_wakeup([this] {
    {
      std::lock_guard lock(mu_);
      woken_ = true;
    }
    wake_.notify_all();
  });
  std::string chunk;
  std::string partial;
  while (!stopping_ && !expired) {
    bool took = false;
    while (!expired && stream->next(chunk)) {
      took = true;
      partial += chunk;
      size_t start = 0;
      for (size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1) {
        json event =
            json::parse(std::string_view(partial).substr(start, end - start), nullptr, false);
        if (event.is_object() && field(event, "type") != nullptr && field(event, "object")) {
          apply(string_field(&event, "type"), std::move(event["object"]), expired);
        }
        if (expired) {
          break;
        }
      }
      partial.erase(0, start);
      if (partial.size() > kMaxEventBytes) {
        apiserver::log::error("informer " + resource_.resource +
                              ": a watch event over 64 MiB; listing again");
        expired = true;
      }
    }
    if (expired || (!took && stream->finished())) {
      break;
    }
    if (!took) {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, std::chrono::seconds(1), [this] { return woken_ || stopping_.load(); });
      woken_ = false;
    }
  }
  stream->close();
  std::lock_guard lock(mu_);
  stream_.reset();
}

void Informer::apply(const std::string& type, json object, bool& expired) {
  if (type == "ERROR") {
    const json* code = field(object, "code");
    if (code != nullptr && code->is_number_integer() && code->get<int>() == 410) {
      expired = true;  // the revision is gone: list again
    } else {
      apiserver::log::error("informer " + resource_.resource +
                            ": watch error: " + string_field(&object, "message"));
    }
    return;
  }
  std::string version = resource_version_of(object);
  if (type == "BOOKMARK") {
    resource_version_ = std::move(version);
    return;
  }
  const std::string key = key_of(object);
  ObjectPtr now = std::make_shared<const json>(std::move(object));
  ObjectPtr old;
  {
    std::unique_lock lock(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      old = it->second;
    }
    if (type == "DELETED") {
      if (it != cache_.end()) {
        cache_.erase(it);
      }
    } else {
      cache_[key] = now;
    }
  }
  resource_version_ = std::move(version);
  for (const InformerHandlers& h : handlers_) {
    if (type == "DELETED") {
      if (h.deleted)
        h.deleted(*now);
    } else if (old == nullptr) {
      if (h.added)
        h.added(*now);
    } else if (h.updated) {
      h.updated(*old, *now);
    }
  }
}

}  // namespace cluster
