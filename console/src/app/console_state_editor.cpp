// ConsoleState's editor and the actions that write: edit, create from a template or a duplicate,
// apply, create, replace, and delete after a confirmation.
#include "console/app/console_state.h"

#include "console/model/object_template.h"
#include "console/model/yaml_text.h"
#include "model/json_fields.h"

namespace console::app {

namespace {

using json = nlohmann::json;

}  // namespace

bool ConsoleState::begin_edit() {
  const model::CachedObject* object = selected_object();
  if (object == nullptr || action_in_flight() || editing()) {
    return false;
  }
  editor_target_ = selected_ref();
  editor_text_ = model::to_yaml(apply_form(object->object()), model::ManagedFields::Show);
  editor_base_rv_ = object->resource_version();
  creating_ = false;
  event_history_.reset();
  action_result_.reset();
  return true;
}

void ConsoleState::open_creator(const json& object) {
  const json& metadata = model::field(object, "metadata");
  editor_target_ = ObjectRef{current_key_, model::string_field(metadata, "namespace"),
                             model::string_field(metadata, "name")};
  editor_text_ = model::to_yaml(object, model::ManagedFields::Show);
  editor_base_rv_.clear();
  creating_ = true;
  force_ = false;
  event_history_.reset();
  action_result_.reset();
}

bool ConsoleState::begin_create() {
  const OpenKind* kind = current();
  if (kind == nullptr || action_in_flight() || editing()) {
    return false;
  }
  const model::ApiResource& r = kind->table.resource();
  if (!r.has_verb("create")) {
    fail(r.kind + " objects cannot be created: the server does not offer create for them");
    return false;
  }
  open_creator(model::object_template(r, r.namespaced ? namespaces_.selected() : ""));
  return true;
}

bool ConsoleState::begin_duplicate() {
  const model::CachedObject* object = selected_object();
  if (object == nullptr || action_in_flight() || editing()) {
    return false;
  }
  open_creator(model::duplicate_object(object->object()));
  return true;
}

void ConsoleState::cancel_edit() {
  editor_target_.reset();
  editor_text_.clear();
  editor_base_rv_.clear();
  creating_ = false;
  action_result_.reset();
}

bool ConsoleState::apply() {
  return send_editor(Purpose::Apply);
}

bool ConsoleState::create() {
  return send_editor(Purpose::Create);
}

bool ConsoleState::replace() {
  return send_editor(Purpose::Replace);
}

bool ConsoleState::submit_editor() {
  return creating() ? create() : apply();
}

bool ConsoleState::send_editor(Purpose purpose) {
  if (!editor_target_ || action_in_flight() || (purpose == Purpose::Create) != creating_) {
    return false;  // Create sends a new object; Apply and Replace an edited one
  }
  const char* action = purpose == Purpose::Create    ? "create"
                       : purpose == Purpose::Replace ? "replace"
                                                     : "apply";
  ObjectRef target = *editor_target_;
  auto fail_locally = [&](std::string reason, std::string message) {
    ActionResult result;
    result.action = action;
    result.target = target;
    result.error = ApiError{0, std::move(reason), std::move(message), {}};
    action_result_ = std::move(result);
    ++actions_answered_;
    return false;
  };
  const auto parsed = model::parse_yaml(editor_text_);
  if (!parsed) {
    return fail_locally("Invalid", "the YAML does not parse: " + parsed.error());
  }
  if (!parsed->is_object()) {
    return fail_locally("Invalid", "the YAML is not an object");
  }
  const OpenKind* kind = find_open(target.kind_key);
  if (kind == nullptr) {
    return fail_locally("", "the object's kind is no longer open");
  }
  const model::ApiResource& resource = kind->table.resource();
  client::Request request;
  if (purpose == Purpose::Apply) {
    request.method = "PATCH";
    request.target = object_path(resource, target.namespace_, target.name) +
                     "?fieldManager=" + kFieldManager + (force_ ? "&force=true" : "");
    request.content_type = "application/apply-patch+yaml";
    request.body = editor_text_;
  } else {
    json object = *parsed;
    const json& metadata = model::field(object, "metadata");
    if (purpose == Purpose::Create) {
      const std::string ns = model::string_field(metadata, "namespace");
      if (resource.namespaced && !ns.empty()) {
        target.namespace_ = ns;
      }
      target.name = model::string_field(metadata, "name");
      request.method = "POST";
      request.target = create_path(resource, target.namespace_) + "?fieldManager=" + kFieldManager;
    } else {
      if (model::string_field(metadata, "resourceVersion").empty() && !editor_base_rv_.empty()) {
        set_path(object, "metadata.resourceVersion", editor_base_rv_);
      }
      request.method = "PUT";
      request.target =
          object_path(resource, target.namespace_, target.name) + "?fieldManager=" + kFieldManager;
    }
    request.content_type = "application/json";
    request.body = object.dump();
  }
  const uint64_t id = send(purpose, std::move(request));
  if (id == 0) {
    return false;
  }
  action_request_ = id;
  pending_action_ = ActionResult{action, target, false, std::nullopt, {}};
  action_result_.reset();
  return true;
}

bool ConsoleState::request_delete() {
  const std::optional<ObjectRef> ref = selected_ref();
  if (!ref || action_in_flight()) {
    return false;
  }
  confirm_delete_ = ref;
  return true;
}

void ConsoleState::cancel_delete() {
  confirm_delete_.reset();
}

bool ConsoleState::confirm_delete() {
  if (!confirm_delete_ || action_in_flight()) {
    return false;
  }
  const ObjectRef target = *confirm_delete_;
  confirm_delete_.reset();
  const OpenKind* kind = find_open(target.kind_key);
  if (kind == nullptr) {
    return false;
  }
  client::Request request;
  request.method = "DELETE";
  request.target = object_path(kind->table.resource(), target.namespace_, target.name);
  const uint64_t id = send(Purpose::Delete, std::move(request));
  if (id == 0) {
    return false;
  }
  action_request_ = id;
  pending_action_ = ActionResult{"delete", target, false, std::nullopt, {}};
  action_result_.reset();
  return true;
}

}  // namespace console::app
