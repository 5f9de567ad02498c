#include "console/client/watch_stream.h"

#include <algorithm>
#include <cctype>

#include "client/guard.h"
#include "client/https_connection.h"
#include "model/json_fields.h"

namespace console::client {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

bool is_table(const json& value) {
  return model::string_field(value, "kind") == "Table" &&
         model::string_field(value, "apiVersion").starts_with("meta.k8s.io/");
}

std::string percent_encode(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> JsonFramer::feed(std::string_view bytes,
                                            std::vector<std::string>& frames) {
  for (char c : bytes) {
    if (depth_ == 0) {
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        continue;
      }
      if (c != '{') {
        return std::string("watch stream: unexpected '") + c + "' between events";
      }
    }
    current_ += c;
    if (current_.size() > max_frame_bytes_) {
      return "watch stream: an event is larger than " + std::to_string(max_frame_bytes_) + " bytes";
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        frames.push_back(std::move(current_));
        current_.clear();
      }
    }
  }
  return std::nullopt;
}

std::chrono::milliseconds Backoff::next() {
  const auto wait = next_;
  next_ = std::min(next_ * 2, max_);
  return wait;
}

const char* to_string(StreamState state) {
  switch (state) {
    case StreamState::Listing:
      return "listing";
    case StreamState::Watching:
      return "watching";
    case StreamState::Retrying:
      return "retrying";
    case StreamState::Stopped:
      return "stopped";
  }
  return "unknown";
}

std::string list_query(const WatchTarget& target) {
  return target.table ? target.path + "?includeObject=Object" : target.path;
}

std::string watch_query(const WatchTarget& target, const std::string& resource_version,
                        int timeout_seconds) {
  std::string q = target.path + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
                  std::to_string(timeout_seconds);
  if (!resource_version.empty()) {
    q += "&resourceVersion=" + percent_encode(resource_version);
  }
  if (target.table) {
    q += "&includeObject=Object";
  }
  return q;
}

std::string accept_header(const WatchTarget& target) {
  // Servers that cannot render a Table answer with plain JSON, which decode_list() takes too.
  return target.table ? "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
                      : "application/json";
}

common::Result<StreamMessage> decode_list(std::string_view body) {
  json list = json::parse(body, nullptr, false);
  if (list.is_discarded() || !list.is_object()) {
    return std::string("the list response is not a JSON object");
  }
  StreamMessage out;
  out.type = StreamMessage::Type::Listed;
  out.resource_version = model::string_field(model::field(list, "metadata"), "resourceVersion");
  if (is_table(list)) {
    out.columns = std::move(list["columnDefinitions"]);
    if (!out.columns.is_array()) {
      return std::string("the Table has no columnDefinitions");
    }
    json& rows = list["rows"];
    if (!rows.is_array() && !rows.is_null()) {
      return std::string("the Table's rows are not an array");
    }
    if (rows.is_array()) {
      out.rows.reserve(rows.size());
      for (json& row : rows) {
        if (!row.is_object() || !model::field(row, "object").is_object()) {
          return std::string(
              "a Table row carries no object (includeObject=Object was not honoured)");
        }
        out.rows.push_back(TableRowData{std::move(row["object"]), std::move(row["cells"])});
      }
    }
    return out;
  }
  out.columns = nullptr;
  json& items = list["items"];
  if (!items.is_array() && !items.is_null()) {
    return std::string("the list's items are not an array");
  }
  // A list leaves kind and apiVersion off its items; put them back as its kind implies.
  const std::string list_kind = model::string_field(list, "kind");
  const std::string api_version = model::string_field(list, "apiVersion");
  const std::string item_kind =
      list_kind.ends_with("List") ? list_kind.substr(0, list_kind.size() - 4) : std::string();
  if (items.is_array()) {
    out.rows.reserve(items.size());
    for (json& item : items) {
      if (item.is_object() && !item_kind.empty() && !item.contains("kind")) {
        item["kind"] = item_kind;
        item["apiVersion"] = api_version;
      }
      out.rows.push_back(TableRowData{std::move(item), nullptr});
    }
  }
  return out;
}

common::Result<StreamMessage> decode_event(std::string_view text) {
  json event = json::parse(text, nullptr, false);
  if (event.is_discarded() || !event.is_object()) {
    return std::string("a watch event is not a JSON object");
  }
  if (!model::field(event, "type").is_string() || !model::field(event, "object").is_object()) {
    return std::string("a watch event lacks its type or object");
  }
  StreamMessage out;
  out.type = StreamMessage::Type::Event;
  out.event_type = event["type"].get<std::string>();
  json& object = event["object"];
  if (is_table(object)) {
    json& rows = object["rows"];
    if (rows.is_array() && !rows.empty()) {
      if (!rows[0].is_object()) {
        return std::string("a watch event's Table row is not an object");
      }
      out.item.object = std::move(rows[0]["object"]);
      out.item.cells = std::move(rows[0]["cells"]);
    } else {
      // A Table without rows still says how far the stream has come.
      out.item.object = json{{"metadata", std::move(object["metadata"])}};
      out.item.cells = nullptr;
    }
    if (!out.item.object.is_object()) {
      return std::string("a watch event's Table row carries no object");
    }
  } else {
    out.item.object = std::move(object);
    out.item.cells = nullptr;
  }
  return out;
}

std::string status_text(int http_status, std::string_view body) {
  json status = json::parse(body, nullptr, false);
  std::string text = "HTTP " + std::to_string(http_status);
  if (status.is_object() && model::string_field(status, "kind") == "Status") {
    const std::string reason = model::string_field(status, "reason");
    const std::string message = model::string_field(status, "message");
    if (!reason.empty()) {
      text += " " + reason;
    }
    if (!message.empty()) {
      text += ": " + message;
    }
    return text;
  }
  std::string shown(body.substr(0, 200));
  std::replace(shown.begin(), shown.end(), '\n', ' ');
  return shown.empty() ? text : text + ": " + shown;
}

std::string refusal_text(int http_status, std::string_view body) {
  if (http_status == 401 || http_status == 403) {
    const json status = json::parse(body, nullptr, false);
    const std::string message = model::string_field(status, "message");
    if (model::string_field(status, "kind") == "Status" && !message.empty()) {
      return message;
    }
  }
  return status_text(http_status, body);
}

WatchStream::WatchStream(ClusterAccess access, WatchTarget target, WatchOptions options,
                         BoundedQueue<StreamMessage>& out)
    : access_(std::move(access)),
      target_(std::move(target)),
      options_(std::move(options)),
      out_(out),
      thread_([this] { run(); }) {}

WatchStream::~WatchStream() {
  stop();
  if (thread_.joinable()) {
    thread_.join();
  }
}

void WatchStream::stop() {
  {
    std::lock_guard lock(pause_mu_);
    stop_ = true;
  }
  pause_cv_.notify_all();
}

bool WatchStream::pause(std::chrono::milliseconds delay) {
  std::unique_lock lock(pause_mu_);
  return !pause_cv_.wait_for(lock, delay, [&] { return stop_.load(); });
}

void WatchStream::post_state(StreamState state, std::string error, int64_t retry_in_ms,
                             int http_status) {
  StreamMessage message;
  message.type = StreamMessage::Type::State;
  message.key = target_.key;
  message.stream_id = target_.stream_id;
  message.state = state;
  message.error = std::move(error);
  message.retry_in_ms = retry_in_ms;
  message.http_status = http_status;
  // A lost state message is superseded by the next; so is one whose wake-up threw.
  detail::run_guarded("watch " + target_.path + ": post state",
                      [&] { out_.try_push(std::move(message)); });
}

common::Result<StreamMessage> WatchStream::list(int& http_status) {
  http_status = 0;
  ClientOptions client_options;
  client_options.timeout = options_.request_timeout;
  client_options.max_response_bytes = options_.max_list_bytes;
  client_options.user_agent = options_.user_agent;
  client_options.cancel = &stop_;
  RestClient client(access_, client_options);
  Request request;
  request.target = list_query(target_);
  request.accept = accept_header(target_);
  auto response = client.request(request);
  if (!response.ok()) {
    return response.error();
  }
  if (response->status == 401 || response->status == 403) {
    http_status = response->status;
    return refusal_text(response->status, response->body);
  }
  if (response->status != 200) {
    return "list " + target_.path + ": " + status_text(response->status, response->body);
  }
  auto listed = decode_list(response->body);
  if (!listed.ok()) {
    return "list " + target_.path + ": " + listed.error();
  }
  listed->key = target_.key;
  listed->stream_id = target_.stream_id;
  return listed;
}

WatchStream::WatchOutcome WatchStream::watch(std::string& resource_version, bool& started) {
  started = false;
  const auto deadline =
      Clock::now() + std::chrono::seconds(options_.watch_timeout_seconds) + options_.watch_margin;
  detail::HttpsConnection connection(access_, options_.user_agent, &stop_);
  if (auto error = connection.open(std::min(deadline, Clock::now() + options_.request_timeout))) {
    return {stop_ ? WatchEnd::Stopped : WatchEnd::Failed, std::move(*error)};
  }
  Request request;
  request.target = watch_query(target_, resource_version, options_.watch_timeout_seconds);
  request.accept = accept_header(target_);
  const auto started_stream =
      connection.start_stream(request, std::min(deadline, Clock::now() + options_.request_timeout));
  if (!started_stream.ok()) {
    return {stop_ ? WatchEnd::Stopped : WatchEnd::Failed, started_stream.error()};
  }
  const int status = *started_stream;
  if (status != 200) {
    std::string body;
    while (body.size() < 64 * 1024) {
      const auto read = connection.read_body(body, Clock::now() + std::chrono::seconds(5));
      if (!read.ok() || *read != detail::HttpsConnection::Read::Data) {
        break;
      }
    }
    if (status == 401 || status == 403) {
      return {WatchEnd::Failed, refusal_text(status, body), status};
    }
    return {status == 410 ? WatchEnd::Expired : WatchEnd::Failed,
            "watch " + target_.path + ": " + status_text(status, body)};
  }
  started = true;
  post_state(StreamState::Watching);
  JsonFramer framer(options_.max_event_bytes);
  std::string bytes;
  std::vector<std::string> frames;
  while (true) {
    bytes.clear();
    const auto read = connection.read_body(bytes, deadline);
    if (!read.ok()) {
      return {stop_ ? WatchEnd::Stopped : WatchEnd::Failed, read.error()};
    }
    if (*read == detail::HttpsConnection::Read::End) {
      return {WatchEnd::Closed, {}};
    }
    frames.clear();
    if (auto error = framer.feed(bytes, frames)) {
      return {WatchEnd::Failed, std::move(*error)};
    }
    for (const std::string& frame : frames) {
      auto decoded = decode_event(frame);
      if (!decoded.ok()) {
        return {WatchEnd::Failed, decoded.error()};
      }
      StreamMessage& event = *decoded;
      event.key = target_.key;
      event.stream_id = target_.stream_id;
      const json& object = event.item.object;
      if (event.event_type == "ERROR") {
        const json& code = model::field(object, "code");
        const bool expired = code.is_number_integer() && code.get<int>() == 410;
        std::string error = "watch " + target_.path + ": " + model::string_field(object, "message");
        out_.try_push(std::move(event));
        return {expired ? WatchEnd::Expired : WatchEnd::Failed, std::move(error)};
      }
      std::string rv = model::string_field(model::field(object, "metadata"), "resourceVersion");
      if (!out_.try_push(std::move(event))) {
        return {WatchEnd::Overflow,
                "the console fell behind the watch of " + target_.path + "; listing again"};
      }
      if (!rv.empty()) {
        resource_version = std::move(rv);
      }
    }
  }
}

bool WatchStream::retry(Backoff& backoff, const std::string& error, int http_status) {
  const auto delay = backoff.next();
  post_state(StreamState::Retrying, error, delay.count(), http_status);
  return pause(delay);
}

bool WatchStream::round(Backoff& backoff, std::string& resource_version, bool& need_list) {
  if (need_list) {
    post_state(StreamState::Listing);
    int refused = 0;
    auto listed = list(refused);
    if (!listed.ok()) {
      return !stop_ && retry(backoff, listed.error(), refused);
    }
    std::string rv = listed->resource_version;
    if (!out_.try_push(std::move(*listed))) {
      return retry(backoff, "the console fell behind; listing " + target_.path + " again");
    }
    resource_version = std::move(rv);
    need_list = false;
  }
  bool started = false;
  const WatchOutcome watched = watch(resource_version, started);
  if (started) {
    backoff.reset();
  }
  const std::string& error = watched.error;
  switch (watched.end) {
    case WatchEnd::Closed:
      break;  // the server's timeoutSeconds: resume at once
    case WatchEnd::Expired:
      need_list = true;  // 410 Gone: the version was compacted
      break;
    case WatchEnd::Overflow:
      need_list = true;
      retry(backoff, error);
      break;
    case WatchEnd::Failed:
      retry(backoff, error, watched.http_status);
      break;
    case WatchEnd::Stopped:
      break;
  }
  return true;
}

void WatchStream::run() {
  Backoff backoff(options_.initial_backoff, options_.max_backoff);
  std::string resource_version;
  bool need_list = true;
  bool go_on = true;
  while (go_on && !stop_) {
    if (auto error = detail::run_guarded("watch " + target_.path, [&] {
          go_on = round(backoff, resource_version, need_list);
        })) {
      // What the UI holds may have missed an event: list again, after a backoff.
      need_list = true;
      go_on = retry(backoff, *error);
    }
  }
  post_state(StreamState::Stopped);
  finished_ = true;
}

}  // namespace console::client
