// What the admission chain is asked about (kube-apiserver's admission.Attributes): one write of
// one object, by one user, and what the plugins leave for the answer (warnings, audit
// annotations). Plain data; any admission file may include it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/registry.h"
#include "errors/status.h"

namespace apiserver::admission {

enum class Operation { Create, Update, Delete, Connect };

// "CREATE", "UPDATE", "DELETE", "CONNECT": as AdmissionReview and webhook rules spell them.
std::string_view operation_name(Operation operation);

// The user a request runs as (after impersonation).
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct Attributes {
  Operation operation = Operation::Create;
  // The resource as the request named it (group, version, resource, kind, scope); never null.
  const registry::Resource* resource = nullptr;
  std::string subresource;  // "" for the main resource
  // The kind of `object` (GetKind): the resource's own, or the subresource's (autoscaling/v1
  // Scale for /scale, v1 Binding, policy/v1 Eviction, authentication.k8s.io/v1 TokenRequest).
  std::string kind_group;
  std::string kind_version;
  std::string kind;
  std::string namespace_;  // "" for cluster-scoped resources
  // The object's name; "" on a create that names it by generateName (the name is chosen after
  // mutating admission, as upstream).
  std::string name;
  // The object being written, in its stored form: mutating plugins may change it. Null on
  // delete and connect.
  nlohmann::json* object = nullptr;
  // What the write replaces (update) or removes (delete); null on create.
  const nlohmann::json* old_object = nullptr;
  // The request's CreateOptions, UpdateOptions or DeleteOptions as JSON (kind and apiVersion
  // set), as AdmissionReview's `options` (a patch's are the UpdateOptions or CreateOptions
  // upstream converts them to).
  nlohmann::json options;
  bool dry_run = false;
  UserInfo user;

  // What the plugins leave for the answer. Warnings go to the client's Warning headers, in
  // order; audit annotations go on the request's audit event.
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::string>> audit_annotations;
  // Reinvocation (upstream's ReinvocationContext): when a mutating webhook with
  // reinvocationPolicy IfNeeded ran before another webhook changed the object, the mutating
  // webhook plugin names it here (configuration/index), and the chain runs the whole mutating
  // pass once more with `reinvoking` set: every in-tree plugin again, and those webhooks.
  std::set<std::string> webhooks_to_reinvoke;
  bool reinvoking = false;
};

// A plugin's answer to one request: nullopt admits; a Status refuses the write with it.
using Decision = std::optional<errors::Status>;

// admission.NewForbidden's 403 about the request's object:
// `<resource>[.<group>] "<name>" is forbidden: <why>` (the resource without its subresource).
errors::Status forbidden(const Attributes& a, const std::string& why);
// The same 403 about the object named `name` (errors.NewForbidden with the request's name).
errors::Status forbidden(const Attributes& a, const std::string& why, const std::string& name);

// The name admission.NewForbidden shows: the object's name, else its generateName (a create's
// name comes later), or "Unknown" when the pass has no object (a delete).
std::string shown_name(const Attributes& a);

}  // namespace apiserver::admission
