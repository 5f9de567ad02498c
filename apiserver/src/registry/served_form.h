// The form a resource row serves its objects in, and the form they are stored in. Most kinds are
// stored as they are served; a kind that several groups serve from one storage (events.k8s.io
// Events, stored as core/v1 Events) is converted on the way in and on the way out, as
// kube-apiserver's codecs convert between a request's version and the storage version. The
// conversions are the kind's strategy's (kind_strategy.h: to_storage, from_storage).
//
// Where they apply: a request's body becomes the stored form before the generic store sees it
// (defaults, validation and the write all work on the stored form), and whatever is answered
// (reads, watch events, what a write stored, a deleted object) becomes the served form. Field
// selectors match the stored form, as upstream matches its internal object.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"

namespace apiserver::registry {

// Whether objects of `r` are stored in another form than `r` serves.
bool stored_in_other_form(const Resource& r);

// In place; nothing happens for rows stored as served, or to what is not a JSON object.
void to_stored_form(const Resource& r, nlohmann::json& object);
void to_served_form(const Resource& r, nlohmann::json& object);

// A stored object's text as `r` serves it (compact JSON, keys sorted, as stored); nullopt when
// the row serves the stored text as it is, or the text is not a JSON object.
std::optional<std::string> served_text(const Resource& r, const std::string& stored);

}  // namespace apiserver::registry
