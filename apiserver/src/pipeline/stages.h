// The stages of the request pipeline before the handler, in the order ApiServer::stages() lists
// them. Each is one file.
#pragma once

#include "filters/authenticator.h"
#include "pipeline/pipeline.h"

namespace apiserver::pipeline {

// Request info: what the request asks for, as kube-apiserver's RequestInfo (verb, group,
// version, resource, subresource, namespace, name) for resource paths. Never answers; decides
// "resource" or "not a resource".
Stage request_info_stage();

// Authentication: who is asking (filters::Authenticator). Answers 401 to credentials that match
// nothing ("refused", with the reason in the trace's notes and the log); no credentials at all is
// system:anonymous. Decides "authenticated".
Stage authentication_stage(const filters::Authenticator& authenticator);

// Authorization: every authenticated user may do anything ("AlwaysAllow", until RBAC is
// enforced); system:anonymous may read only the public paths ("public path": health, version,
// as system:public-info-viewer grants) and gets the 403 of kube-apiserver's authorization filter
// for the rest ("forbidden").
Stage authorization_stage();

}  // namespace apiserver::pipeline
