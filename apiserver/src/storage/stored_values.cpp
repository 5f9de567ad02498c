#include "storage/stored_values.h"

#include <utility>

#include "apiserver/log.h"
#include "protobuf/decode.h"
#include "protobuf/encode.h"

namespace apiserver::storage {
namespace {

// The events of each response decoded as they are taken; everything else is the store's.
class DecodingWatcher final : public store::Watcher {
 public:
  explicit DecodingWatcher(std::shared_ptr<store::Watcher> inner) : inner_(std::move(inner)) {}

  int64_t id() const override { return inner_->id(); }
  bool next(store::WatchResponse& out, std::chrono::milliseconds timeout) override {
    if (!inner_->next(out, timeout)) {
      return false;
    }
    decode(out);
    return true;
  }
  bool try_next(store::WatchResponse& out) override {
    if (!inner_->try_next(out)) {
      return false;
    }
    decode(out);
    return true;
  }
  void set_notify(std::function<void()> notify) override { inner_->set_notify(std::move(notify)); }
  void request_progress() override { inner_->request_progress(); }
  void cancel() override { inner_->cancel(); }
  bool finished() const override { return inner_->finished(); }

 private:
  static void decode_value(store::KeyValue& kv) {
    std::string error = to_json(kv.key, kv.value);
    if (!error.empty()) {
      log::warning(error);
    }
  }
  static void decode(store::WatchResponse& response) {
    for (store::Event& event : response.events) {
      decode_value(event.kv);
      if (event.prev_kv) {
        decode_value(*event.prev_kv);
      }
    }
  }

  std::shared_ptr<store::Watcher> inner_;
};

}  // namespace

std::string for_storage(const std::string& key, const std::string& json_text, MediaType type) {
  if (type == MediaType::Json) {
    return json_text;
  }
  auto object = nlohmann::json::parse(json_text, nullptr, false);
  auto api_version = object.is_object() ? object.find("apiVersion") : object.end();
  auto kind = object.is_object() ? object.find("kind") : object.end();
  if (api_version == object.end() || kind == object.end() || !api_version->is_string() ||
      !kind->is_string() ||
      !protobuf::has_message(api_version->get_ref<const std::string&>(),
                             kind->get_ref<const std::string&>())) {
    return json_text;
  }
  auto encoded = protobuf::encode_k8s_protobuf(object);
  if (!encoded) {
    log::warning("storing " + key + " as JSON: " + encoded.error());
    return json_text;
  }
  return std::move(*encoded);
}

std::string to_json(const std::string& key, std::string& value) {
  if (!protobuf::is_k8s_protobuf(value)) {
    return "";
  }
  auto decoded = protobuf::decode_k8s_protobuf(value);
  if (!decoded) {
    return "unable to decode " + key + ": " + decoded.error();
  }
  value = decoded->dump();
  return "";
}

std::shared_ptr<store::Watcher> decoding(std::shared_ptr<store::Watcher> watcher) {
  if (!watcher) {
    return watcher;
  }
  return std::make_shared<DecodingWatcher>(std::move(watcher));
}

}  // namespace apiserver::storage
