// How the availability controller judges a service-backed APIService, as kube-aggregator's
// available-condition controller does: the Service must exist; a ClusterIP Service must have a
// port equal to spec.service.port and an Endpoints object with an address for that port's name;
// then the extension's discovery document (/apis/<group>/<version>) must answer with a 2xx
// status within the check's timeout. Pure: the caller makes the discovery call.
#pragma once

#include <optional>
#include <string>

#include "aggregator/apiservice.h"
#include "webhook/resolve.h"

namespace apiserver::aggregator {

// The Service and Endpoints checks: the False (or Unknown) condition they end in, with
// upstream's reason and message (ServiceNotFound, ServicePortError, EndpointsNotFound,
// MissingEndpoints), or nullopt when they pass and the discovery check comes next. `service`
// must have spec.service. An Endpoints object is what upstream v1.32 looks at; kube-sandbox
// also accepts EndpointSlices labelled with the service's name when there is no Endpoints
// object, as its resolver does.
std::optional<Condition> check_service(const ApiService& service, const webhook::Lookups& lookups);

// The path the discovery check asks for: /apis/<group>/<version> (/api/<version> for "v1.").
std::string discovery_path(const ApiService& service);

// The condition a discovery check ends in: `error` is the call's error (Go's words, e.g.
// `Get "https://...": context deadline exceeded`) or empty when it answered; `status` the
// answer's status. `url` is the address asked.
Condition discovery_condition(const std::string& url, const std::string& error, int status);

}  // namespace apiserver::aggregator
