// Objects as they may be stored: JSON, as kube-sandbox writes them, or the Kubernetes protobuf
// envelope ("k8s\0" + runtime.Unknown) that kube-apiserver writes for built-in kinds with its
// default --storage-media-type. Storage hands its readers JSON either way, so an etcd that a stock
// kube-apiserver filled serves through kube-sandbox as it is.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "store/watch.h"

namespace apiserver::storage {

// kube-apiserver's --storage-media-type: how objects of built-in kinds are written (custom
// resources and kinds without a protobuf message are always JSON, as upstream).
enum class MediaType { Json, Protobuf };

// What goes to the store for the object `json_text` under `key`: the text itself, or with
// Protobuf its envelope when its kind has a message. An object the encoder cannot write (a value
// of a type its field does not take) is stored as JSON, which every reader takes too, and logged.
std::string for_storage(const std::string& key, const std::string& json_text, MediaType type);

// Turns a protobuf `value` into its JSON text in place; JSON is left as it is. Empty on success,
// else why `key`'s value cannot be read (the decoder's error).
std::string to_json(const std::string& key, std::string& value);

// A watch whose events (and their previous values) carry JSON, whatever the store holds; a value
// that cannot be decoded is passed on as stored (its reader then refuses it) and logged.
std::shared_ptr<store::Watcher> decoding(std::shared_ptr<store::Watcher> watcher);

}  // namespace apiserver::storage
