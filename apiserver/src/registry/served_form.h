// The form a resource row serves its objects in, and the form they are stored in, as
// kube-apiserver's codecs convert between a request's version and the storage version:
// - a kind that several groups serve from one storage (events.k8s.io Events, stored as core/v1
//   Events) is converted by its strategy (kind_strategy.h: to_storage, from_storage);
// - a kind served at several versions of its group is stored at one of them (Resource::stored_as)
//   and converted between versions: custom resources by their CRD's strategy
//   (custom_conversion.h), built-in kinds by their conversion functions
//   (builtin_conversion.h). A stored object names its version in apiVersion, so objects written
//   before a CRD's storage version changed are read back from the version they were stored at.
//
// Where they apply: a request's body becomes the stored form before the generic store sees it
// (defaults, validation and the write all work on the stored form, with the storage row), and
// whatever is answered (reads, watch events, what a write stored, a deleted object) becomes the
// served form. Field selectors match the stored form, as upstream matches its internal object.
// A conversion can fail (a conversion webhook that does not answer): the Status says why, in
// kube-apiserver's words, and the request fails with it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "errors/result.h"

namespace apiserver::registry {

// Whether objects of `r` may be stored in another form than `r` serves (so that answers must be
// converted).
bool stored_in_other_form(const Resource& r);

// The row whose form objects of `r` are stored in: `r` itself, or its storage version's row.
const Resource& storage_row(const Resource& r);

// In place; nothing happens for rows stored as served, or to what is not a JSON object.
std::optional<errors::Status> to_stored_form(const Resource& r, nlohmann::json& object);
std::optional<errors::Status> to_served_form(const Resource& r, nlohmann::json& object);
// The items of one list, converted together (one conversion webhook call for all of them).
std::optional<errors::Status> to_served_forms(const Resource& r,
                                              std::vector<nlohmann::json*> objects);

// A stored object's text as `r` serves it (compact JSON); nullopt when the row serves the stored
// text as it is, or the text is not a JSON object.
errors::Result<std::optional<std::string>> served_text(const Resource& r,
                                                       const std::string& stored);

}  // namespace apiserver::registry
