#include "audit/auditor.h"

#include <arpa/inet.h>

#include <algorithm>
#include <mutex>
#include <utility>

#include "endpoints/body_decode.h"
#include "endpoints/yaml_json.h"
#include "protobuf/decode.h"
#include "registry/objects.h"
#include "registry/print_cells.h"

namespace apiserver::audit {
namespace {

thread_local RequestAudit* current_audit = nullptr;

// An IP address in Go's net.IP.String() form, or "" when `text` is none.
std::string canonical_ip(const std::string& text) {
  unsigned char bytes[16];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, text.c_str(), bytes) == 1) {
    return inet_ntop(AF_INET, bytes, out, sizeof out) != nullptr ? out : "";
  }
  if (inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
    return inet_ntop(AF_INET6, bytes, out, sizeof out) != nullptr ? out : "";
  }
  return "";
}

// utilnet.SourceIPs: the X-Forwarded-For chain, X-Real-Ip when not in it, then the peer.
std::vector<std::string> source_ips(const http::Request& request) {
  std::vector<std::string> ips;
  const std::string forwarded = request.header("X-Forwarded-For");
  size_t start = 0;
  while (!forwarded.empty() && start <= forwarded.size()) {
    size_t comma = forwarded.find(',', start);
    if (comma == std::string::npos) {
      comma = forwarded.size();
    }
    if (auto ip = canonical_ip(registry::cells::trim_space(forwarded.substr(start, comma - start)));
        !ip.empty()) {
      ips.push_back(ip);
    }
    start = comma + 1;
  }
  if (auto ip = canonical_ip(request.header("X-Real-Ip"));
      !ip.empty() && std::find(ips.begin(), ips.end(), ip) == ips.end()) {
    ips.push_back(ip);
  }
  std::string peer = canonical_ip(request.remote_address);
  if (const auto colon = request.remote_address.rfind(':');
      peer.empty() && colon != std::string::npos) {
    std::string host = request.remote_address.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    peer = canonical_ip(host);
  }
  if (!peer.empty() && (ips.empty() || ips.back() != peer)) {
    ips.push_back(peer);
  }
  return ips;
}

// What a refused request tried, as upstream's failed-authentication audit words it.
std::string authentication_methods(const http::Request& request) {
  std::vector<std::string> methods;
  const std::string authorization = registry::cells::trim_space(request.header("Authorization"));
  auto lower_prefix = [&authorization](std::string_view word) {
    if (authorization.size() <= word.size() || authorization[word.size()] != ' ') {
      return false;
    }
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(authorization[i])) != word[i]) {
        return false;
      }
    }
    return true;
  };
  if (lower_prefix("basic")) {
    methods.push_back("basic");
  }
  if (lower_prefix("bearer")) {
    methods.push_back("bearer");
  }
  if (!registry::cells::trim_space(request.query_value("access_token")).empty()) {
    methods.push_back("access_token");
  }
  if (request.client_certificate) {
    methods.push_back("x509");
  }
  if (methods.empty()) {
    return "Authentication failed, no credentials provided";
  }
  std::string text = "Authentication failed, attempted: ";
  for (size_t i = 0; i < methods.size(); ++i) {
    text += (i ? ", " : "") + methods[i];
  }
  return text;
}

std::optional<nlohmann::ordered_json> parse_json(const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    return std::nullopt;
  }
  return doc;
}

// The request's body as JSON, whichever of the served media types it came in (the fields of a
// YAML or protobuf body in name order); nullopt when it does not decode.
std::optional<nlohmann::ordered_json> request_body(const http::Request& request) {
  const std::string type = endpoints::media_type(request.header("Content-Type"));
  if (type == "application/vnd.kubernetes.protobuf" || type == "application/yaml") {
    auto decoded = type == "application/yaml" ? endpoints::yaml_to_json(request.body)
                                              : protobuf::decode_k8s_protobuf(request.body);
    if (!decoded) {
      return std::nullopt;
    }
    return parse_json(decoded->dump());
  }
  return parse_json(request.body);
}

std::string string_at(const nlohmann::ordered_json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A watch's stream, which writes ResponseComplete when it ends (the client went away, the
// server stopped or the watch finished).
class AuditedStream : public http::ChunkStream {
 public:
  AuditedStream(std::shared_ptr<http::ChunkStream> inner, std::shared_ptr<Auditor> auditor,
                Event event, bool omit_complete)
      : inner_(std::move(inner)),
        auditor_(std::move(auditor)),
        event_(std::move(event)),
        omit_complete_(omit_complete) {}
  ~AuditedStream() override { complete(); }

  bool next(std::string& chunk) override { return inner_->next(chunk); }
  bool finished() const override { return inner_->finished(); }
  void set_wakeup(std::function<void()> wakeup) override { inner_->set_wakeup(std::move(wakeup)); }
  void close() override {
    inner_->close();
    complete();
  }

 private:
  void complete() {
    std::call_once(once_, [this] {
      if (omit_complete_) {
        return;
      }
      event_.stage = Stage::ResponseComplete;
      event_.stage_time = std::chrono::system_clock::now();
      auditor_->write(event_);
    });
  }

  std::shared_ptr<http::ChunkStream> inner_;
  std::shared_ptr<Auditor> auditor_;
  Event event_;
  const bool omit_complete_;
  std::once_flag once_;
};

}  // namespace

Auditor::Auditor(Policy policy, std::unique_ptr<LogWriter> writer)
    : policy_(std::move(policy)), writer_(std::move(writer)) {}

void Auditor::write(const Event& event) {
  writer_->add(render(event));
}

void Auditor::flush() {
  writer_->flush();
}

RequestAudit::RequestAudit(std::shared_ptr<Auditor> auditor, const http::Request& request,
                           std::chrono::system_clock::time_point received)
    : auditor_(std::move(auditor)), request_(request) {
  event_.audit_id = request.header("Audit-ID");
  if (event_.audit_id.empty()) {
    event_.audit_id = registry::new_uid();
  }
  event_.request_received = received;
}

Level RequestAudit::begin(const Attributes& attributes, const UserInfo& user) {
  if (auditor_ == nullptr || begun_) {
    return config_.level;
  }
  if (open(attributes, user) != Level::None) {
    emit(Stage::RequestReceived);
  }
  return config_.level;
}

Level RequestAudit::open(const Attributes& attributes, const UserInfo& user) {
  begun_ = true;
  config_ = evaluate(auditor_->policy(), attributes);
  if (config_.level == Level::None) {
    return config_.level;
  }
  event_.level = config_.level;
  event_.request_uri = request_.target;
  event_.verb = attributes.verb;
  event_.user = user;
  event_.source_ips = source_ips(request_);
  event_.user_agent = request_.header("User-Agent");
  if (attributes.resource_request) {
    ObjectReference ref;
    ref.resource = attributes.resource;
    ref.namespace_ = attributes.namespace_;
    ref.name = attributes.name;
    ref.api_group = attributes.group;
    ref.api_version = attributes.version;
    ref.subresource = attributes.subresource;
    event_.object_ref = std::move(ref);
  }
  return config_.level;
}

void RequestAudit::annotate(const std::string& key, const std::string& value) {
  if (begun_ && config_.level != Level::None) {
    event_.annotations.emplace(key, value);  // the first value of a key stays, as upstream
  }
}

void RequestAudit::impersonated(const UserInfo& user) {
  if (begun_ && config_.level != Level::None) {
    event_.impersonated_user = user;
  }
}

void RequestAudit::panicked(const std::string& what) {
  if (!begun_ || done_ || config_.level == Level::None) {
    return;
  }
  done_ = true;
  event_.response_status =
      ResponseStatus{"Failure", "APIServer panic'd: " + what, "InternalError", std::nullopt, 500};
  emit(Stage::Panic);
}

void RequestAudit::finish(http::Response& response, const Attributes& attributes,
                          bool long_running) {
  response.set_header("Audit-Id", event_.audit_id);
  if (auditor_ == nullptr || done_) {
    return;
  }
  done_ = true;
  if (!begun_) {
    if (response.status != 401) {
      return;  // a request that never reached the audit stage for another reason
    }
    // Upstream's failed-authentication audit: the policy for the request without a user.
    Attributes anonymous = attributes;
    anonymous.user = {};
    if (open(anonymous, UserInfo{}) == Level::None) {
      return;
    }
    event_.response_status = ResponseStatus{};
    event_.response_status->message = authentication_methods(request_);
    event_.response_status->code = response.status;
    emit(Stage::ResponseStarted);
    return;
  }
  if (config_.level == Level::None) {
    return;
  }
  record_request_object();
  record_response(response);
  if (!long_running) {
    emit(Stage::ResponseComplete);
    return;
  }
  emit(Stage::ResponseStarted);
  if (response.stream) {
    response.stream = std::make_shared<AuditedStream>(std::move(response.stream), auditor_, event_,
                                                      config_.omits(Stage::ResponseComplete));
    return;
  }
  emit(Stage::ResponseComplete);
}

void RequestAudit::record_request_object() {
  if (!event_.object_ref || request_.body.empty()) {
    return;
  }
  const bool names_object = event_.verb == "create" || event_.verb == "update";
  if (!names_object && config_.level < Level::Request) {
    return;
  }
  auto body = request_body(request_);
  if (!body) {
    return;
  }
  // A created or replaced object completes the reference (LogRequestObject).
  if (names_object && body->is_object()) {
    if (auto meta = body->find("metadata"); meta != body->end() && meta->is_object()) {
      ObjectReference& ref = *event_.object_ref;
      for (auto [field, key] :
           {std::pair{&ref.namespace_, "namespace"}, std::pair{&ref.name, "name"},
            std::pair{&ref.uid, "uid"}, std::pair{&ref.resource_version, "resourceVersion"}}) {
        if (field->empty()) {
          *field = string_at(*meta, key);
        }
      }
    }
  }
  if (config_.level < Level::Request) {
    return;
  }
  if (config_.omit_managed_fields) {
    drop_managed_fields(*body);
  }
  event_.request_object = std::move(*body);
}

void RequestAudit::record_response(const http::Response& response) {
  event_.response_status = ResponseStatus{};
  event_.response_status->code = response.status;
  std::string content_type;
  for (const auto& [name, value] : response.headers) {
    if (name == "Content-Type") {
      content_type = value;
    }
  }
  if (response.stream || response.body.empty() || !content_type.starts_with("application/json")) {
    return;
  }
  const bool maybe_status = response.body.find("\"kind\":\"Status\"") != std::string::npos;
  const bool want_object = config_.level == Level::RequestResponse && event_.object_ref;
  if (!maybe_status && !want_object) {
    return;
  }
  auto body = parse_json(response.body);
  if (!body) {
    return;
  }
  if (auto status = status_of(*body)) {
    event_.response_status = std::move(*status);
    event_.response_status->code = response.status;
  }
  if (config_.level == Level::RequestResponse) {
    if (config_.omit_managed_fields) {
      drop_managed_fields(*body);
    }
    event_.response_object = std::move(*body);
  }
}

void RequestAudit::emit(Stage stage) {
  if (config_.omits(stage)) {
    return;
  }
  event_.stage = stage;
  event_.stage_time =
      stage == Stage::RequestReceived ? event_.request_received : std::chrono::system_clock::now();
  auditor_->write(event_);
}

Scope::Scope(RequestAudit& audit) : previous_(current_audit) {
  current_audit = &audit;
}

Scope::~Scope() {
  current_audit = previous_;
}

RequestAudit* current() {
  return current_audit;
}

void annotate(const std::string& key, const std::string& value) {
  if (current_audit != nullptr) {
    current_audit->annotate(key, value);
  }
}

void log_impersonated_user(const UserInfo& user) {
  if (current_audit != nullptr) {
    current_audit->impersonated(user);
  }
}

}  // namespace apiserver::audit
