// Converting custom resources between the versions of their CRD (spec.conversion), as
// apiextensions-apiserver's CR converter does. A CRD's objects are stored at its storage version
// and served at any served version; every read converts what was stored (at whatever version it
// was written) to the request's version, and every write converts the request's object to the
// storage version.
//
// The strategy does the work on the objects that are not at the wanted version yet:
// - None: only apiVersion changes (the fields are kept as they are).
// - Webhook: a ConversionReview to the CRD's webhook (conversion/webhook_converter.h).
// Around either, `convert_custom` checks what the strategy answered (the same kind, name,
// namespace and uid; metadata other than labels and annotations restored from the original) and
// words a failure as kube-apiserver does: a 500 Status whose message begins
// `conversion for <group>/<version>, Kind=<Kind> failed: ...`.
//
// Thread-safety: converters are immutable and may be called from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors/status.h"

namespace apiserver::registry {

class CustomConverter {
 public:
  virtual ~CustomConverter() = default;
  // "None" or "Webhook", for traces.
  virtual std::string strategy() const = 0;
  // Converts each object to `api_version` (objects already there are not passed). Returns the
  // converted objects in order, or the strategy's error text, which names what is converted as
  // `what` (gvk_text of a list, or "/, Kind=" for one object, as upstream's are), e.g.
  // `conversion webhook for /, Kind= failed: Post "https://...": context deadline exceeded`.
  virtual common::Result<std::vector<nlohmann::json>> convert(
      const std::vector<nlohmann::json>& objects, const std::string& api_version,
      const std::string& what) const = 0;
};

// Strategy None.
class NoneConverter final : public CustomConverter {
 public:
  std::string strategy() const override { return "None"; }
  common::Result<std::vector<nlohmann::json>> convert(const std::vector<nlohmann::json>& objects,
                                                      const std::string& api_version,
                                                      const std::string& what) const override;
};

// Converts every object of `objects` not yet at `api_version` to it, in place, with `converter`
// (null: None). `valid_versions` are the CRD's versions ("group/version"); a version outside
// them, asked for or found in an object, is refused. On failure nothing is changed. `list_kind`
// is set when the objects are the items of one list (the message then names the list's kind).
std::optional<errors::Status> convert_custom(const CustomConverter* converter,
                                             const std::vector<std::string>& valid_versions,
                                             std::vector<nlohmann::json*> objects,
                                             const std::string& api_version,
                                             const std::string& list_kind = "");

// Go's rendering of a GroupVersionKind, as conversion errors print it:
// "media.example.com/v1, Kind=VideoProcessor" ("/, Kind=" when all are empty).
std::string gvk_text(const std::string& api_version, const std::string& kind);

}  // namespace apiserver::registry
