// The API's error vocabulary: metav1.Status, the one shape every error answer (and a delete's
// success answer) takes, written in one place, in Go's field order with Go's omitempty rules.
// Constructors name kube-apiserver's reasons. Any layer may use it: it depends on nothing but
// the HTTP types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/http.h"

namespace apiserver::errors {

// metav1.StatusCause; empty fields are left out.
struct Cause {
  std::string reason;  // e.g. FieldValueInvalid
  std::string message;
  std::string field;
};

// metav1.StatusDetails; empty fields are left out, so Details{} is written as {}.
struct Details {
  std::string name;
  std::string group;
  std::string kind;  // the resource, as kube-apiserver's errors name it (e.g. "configmaps")
  std::string uid;
  std::vector<Cause> causes;
  int retry_after_seconds = 0;

  // From the JSON form the handlers build ({"name", "group", "kind", "uid", "causes": [...],
  // "retryAfterSeconds"}); what is not a string (or a number) there is left out.
  static Details from_json(const nlohmann::json& details);
};

struct Status {
  int code = 500;
  std::string status = "Failure";  // or "Success"
  std::string message;
  std::string reason;              // empty: StatusReasonUnknown, which Go leaves out
  std::optional<Details> details;  // nullopt: no details at all

  // The JSON document, fields in Go's order.
  nlohmann::ordered_json document() const;
  // Its text. Messages quote client bytes: invalid UTF-8 is replaced (U+FFFD), as Go's encoder
  // does, never thrown over.
  std::string json() const;
  // An HTTP response carrying it: the code as HTTP status (200 when there is none, as for a
  // Success), Content-Type application/json.
  http::Response response() const;
  // Read back from a document of this shape (fields that are not there or of another type are
  // left empty).
  static Status from_json(const nlohmann::json& doc);
};

// Details that name an object: name, group, kind (the resource) and uid; empty ones left out.
Details object_details(std::string name, std::string group, std::string kind, std::string uid = "");

Status failure(int code, const std::string& reason, const std::string& message,
               std::optional<Details> details = std::nullopt);
// 400 BadRequest.
Status bad_request(const std::string& message);
// 500 InternalError: "Internal error occurred: <detail>", with one cause carrying <detail>.
Status internal_error(const std::string& detail);
// 404 NotFound for a path no route serves: "the server could not find the requested resource",
// with empty details.
Status no_route();
// 405 MethodNotAllowed for a method the path's route does not serve: "the server does not allow
// this method on the requested resource", with empty details.
Status method_not_routed();

}  // namespace apiserver::errors
