// One request's admission (admission/chain.h): the attributes the chain is asked about, built
// from the request (the resource as the request named it, the user it runs as, its options and
// dryRun), and the two passes handed to the generic store. What the plugins leave (warnings,
// audit annotations) is read back once the write is done.
#pragma once

#include <string>
#include <vector>

#include "admission/chain.h"
#include "apiserver/http.h"
#include "endpoints/resources.h"
#include "registry/generic/store.h"

namespace apiserver::endpoints {

class AdmissionRequest {
 public:
  // `chain` may be null (nothing is admitted then); `chain`, `r` and `request` outlive this.
  // `options_kind`: "CreateOptions", "UpdateOptions" or "DeleteOptions".
  AdmissionRequest(const admission::Chain* chain, const registry::Resource& r,
                   const RequestInfo& info, const http::Request& request,
                   admission::Operation operation, const std::string& options_kind, bool dry_run);
  AdmissionRequest(const AdmissionRequest&) = delete;
  AdmissionRequest& operator=(const AdmissionRequest&) = delete;

  // The passes for the store (empty without a chain). They refer to this object. Through /scale
  // the chain sees the autoscaling/v1 Scale (as upstream's), not the workload; a kind stored in
  // another group's form is seen in the request's.
  registry::AdmissionPasses passes();
  // A create through a subresource whose body is not what gets stored (a pod's binding or
  // eviction, a TokenRequest): both passes over `body` (which the mutating one may change), with
  // no old object; the refusal, if any.
  admission::Decision admit_body(nlohmann::json& body);
  // A delete's mutating pass, run before the store reads the object (as upstream's delete
  // handler: no object, no old object); the refusal, if any.
  admission::Decision admit_delete();

  // The plugins' warnings, in order; their audit annotations go to the request's trace (and
  // from there on its audit event) as they are made.
  const std::vector<std::string>& warnings() const { return attributes_.warnings; }

 private:
  void publish_annotations();
  // Whether the chain sees the object in another form than the store's: the autoscaling/v1
  // Scale through /scale, or the request's form of a kind stored in another
  // (registry/served_form.h: events.k8s.io Events).
  bool viewed_otherwise() const;
  errors::Result<nlohmann::json> as_seen(const nlohmann::json& object) const;
  // What the mutating pass made of the seen form, back into the stored object.
  std::optional<errors::Status> take_back(nlohmann::json& object, nlohmann::json seen) const;

  const admission::Chain* chain_;
  const registry::Resource* resource_;
  admission::Attributes attributes_;
  size_t published_ = 0;
};

// `warnings` (Warning header values) followed by the admission's, made header values (299, the
// text quoted, kube-apiserver's limits).
std::vector<std::string> with_admission_warnings(std::vector<std::string> warnings,
                                                 const AdmissionRequest& admission);

}  // namespace apiserver::endpoints
