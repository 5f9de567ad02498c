#include "fixtures.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

namespace sandbox::fixtures {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFieldManager = "kube-sandbox-fixtures";
constexpr size_t kMaxFileBytes = 64 * 1024 * 1024;

bool is_fixture_file(const fs::path& path) {
  std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

Document make_document(const std::string& file, int line, std::string text) {
  Document doc;
  doc.file = file;
  doc.line = line;
  doc.text = std::move(text);
  return doc;
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  return value && value.IsScalar() ? value.as<std::string>() : std::string();
}

// Fills the routing fields of `doc` from its parsed root, or sets its error.
void describe(const YAML::Node& root, Document& doc) {
  if (!root.IsMap()) {
    doc.error = "the document is not an object";
    return;
  }
  doc.api_version = scalar(root, "apiVersion");
  doc.kind = scalar(root, "kind");
  const YAML::Node metadata = root["metadata"];
  if (metadata && metadata.IsMap()) {
    doc.name = scalar(metadata, "name");
    doc.namespace_ = scalar(metadata, "namespace");
  }
  if (doc.api_version.empty() || doc.kind.empty()) {
    doc.error = "the document has no apiVersion or kind";
  } else if (doc.name.empty()) {
    doc.error = "the document has no metadata.name (generateName cannot be applied)";
  }
}

// One document's text starting at `line`: its objects (a List stands for its items).
void add_document(const std::string& file, int line, const std::string& text,
                  std::vector<Document>& out) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    Document bad = make_document(file, line + (e.mark.is_null() ? 0 : e.mark.line), text);
    bad.error = "invalid YAML: " + e.msg;
    out.push_back(std::move(bad));
    return;
  }
  if (!root || root.IsNull()) {
    return;  // an empty document (comments only)
  }
  std::string kind = root.IsMap() ? scalar(root, "kind") : "";
  if (kind.size() > 4 && kind.ends_with("List") && root["items"] && root["items"].IsSequence()) {
    for (const auto& item : root["items"]) {
      Document doc = make_document(
          file, line + (item.Mark().is_null() ? 0 : item.Mark().line), YAML::Dump(item));
      describe(item, doc);
      out.push_back(std::move(doc));
    }
    return;
  }
  Document doc = make_document(file, line, text);
  describe(root, doc);
  out.push_back(std::move(doc));
}

// Splits a file on its `---` separator lines (a JSON file is one document).
void split_file(const std::string& file, const std::string& content, std::vector<Document>& out) {
  std::istringstream in(content);
  std::string text;
  std::string line;
  int number = 0;
  int start = 1;
  while (std::getline(in, line)) {
    ++number;
    bool separator = line.rfind("---", 0) == 0 &&
                     (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
    if (separator) {
      add_document(file, start, text, out);
      text.clear();
      start = number + 1;
      continue;
    }
    text += line;
    text += '\n';
  }
  add_document(file, start, text, out);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Kind -> (resource, namespaced) per group/version, from the legacy discovery documents.
class Discovery {
 public:
  explicit Discovery(const Transport& send) : send_(send) {}

  struct Resource {
    std::string name;
    bool namespaced = false;
  };

  // The resource of `kind` in `api_version`, or kubectl's message when it has none.
  common::Result<Resource> find(const std::string& api_version, const std::string& kind) {
    auto& kinds = load(api_version);
    auto it = kinds.find(kind);
    if (it == kinds.end()) {
      // A CRD established since the last look adds kinds: look again once.
      loaded_.erase(api_version);
      auto& fresh = load(api_version);
      it = fresh.find(kind);
      if (it == fresh.end()) {
        return "no matches for kind \"" + kind + "\" in version \"" + api_version + "\"";
      }
    }
    return it->second;
  }

 private:
  std::map<std::string, Resource>& load(const std::string& api_version) {
    auto [it, inserted] = loaded_.try_emplace(api_version);
    if (inserted) {
      std::string path =
          api_version.find('/') == std::string::npos ? "/api/" + api_version : "/apis/" + api_version;
      Reply reply = send_("GET", path, "", "");
      json doc = reply.status == 200 ? json::parse(reply.body, nullptr, false) : json();
      if (doc.is_object()) {
        for (const auto& r : doc.value("resources", json::array())) {
          std::string name = r.value("name", "");
          if (!name.empty() && name.find('/') == std::string::npos) {
            it->second[r.value("kind", "")] = {name, r.value("namespaced", false)};
          }
        }
      }
    }
    return it->second;
  }

  const Transport& send_;
  std::map<std::string, std::map<std::string, Resource>> loaded_;
};

// "deployment.apps/web", "configmap/x": how kubectl names an object in its reports.
std::string object_name(const Document& doc) {
  auto slash = doc.api_version.find('/');
  std::string group = slash == std::string::npos ? "" : doc.api_version.substr(0, slash);
  return lower(doc.kind) + (group.empty() ? "" : "." + group) + "/" + doc.name;
}

std::string status_message(const Reply& reply) {
  json status = json::parse(reply.body, nullptr, false);
  if (status.is_object() && status.contains("message")) {
    std::string out = status.value("message", "");
    std::string reason = status.value("reason", "");
    return reason.empty() ? out : reason + ": " + out;
  }
  return "HTTP " + std::to_string(reply.status) + ": " + reply.body.substr(0, 200);
}

std::string resource_version(const std::string& body) {
  json object = json::parse(body, nullptr, false);
  if (!object.is_object()) {
    return "";
  }
  return object.value("/metadata/resourceVersion"_json_pointer, std::string());
}

Result apply_one(const Document& doc, Discovery& discovery, const Transport& send) {
  Result result;
  result.file = doc.file;
  result.line = doc.line;
  result.object = doc.kind.empty() ? "(document)" : object_name(doc);
  if (!doc.error.empty()) {
    result.message = doc.error;
    return result;
  }
  auto resource = discovery.find(doc.api_version, doc.kind);
  if (!resource) {
    result.message = resource.error();
    return result;
  }
  std::string path = doc.api_version.find('/') == std::string::npos
                         ? "/api/" + doc.api_version
                         : "/apis/" + doc.api_version;
  if (resource->namespaced) {
    path += "/namespaces/" + (doc.namespace_.empty() ? std::string("default") : doc.namespace_);
  }
  path += "/" + resource->name + "/" + doc.name;
  Reply before = send("GET", path, "", "");
  if (before.status != 200 && before.status != 404) {
    result.message = status_message(before);
    return result;
  }
  Reply applied = send("PATCH",
                       path + "?fieldManager=" + kFieldManager + "&force=true&fieldValidation=Strict",
                       "application/apply-patch+yaml", doc.text);
  if (applied.status == 201 || (applied.status == 200 && before.status == 404)) {
    result.outcome = Outcome::Created;
  } else if (applied.status == 200) {
    result.outcome = resource_version(applied.body) == resource_version(before.body)
                         ? Outcome::Unchanged
                         : Outcome::Configured;
  } else {
    result.message = status_message(applied);
  }
  return result;
}

// Waits until the CRD named `name` reports Established (or the deadline passes).
void wait_established(const std::string& name, const Transport& send,
                      std::chrono::steady_clock::time_point deadline) {
  const std::string path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name;
  while (std::chrono::steady_clock::now() < deadline) {
    Reply reply = send("GET", path, "", "");
    json crd = json::parse(reply.body, nullptr, false);
    if (crd.is_object()) {
      for (const auto& c : crd.value("/status/conditions"_json_pointer, json::array())) {
        if (c.value("type", "") == "Established" && c.value("status", "") == "True") {
          return;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int rank(const Document& doc) {
  if (doc.kind == "CustomResourceDefinition") {
    return 0;
  }
  return doc.kind == "Namespace" ? 1 : 2;
}

}  // namespace

common::Result<std::vector<Document>> read(const std::vector<std::string>& paths) {
  std::vector<Document> out;
  for (const auto& given : paths) {
    std::error_code ec;
    fs::path path(given);
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        if (entry.is_regular_file() && is_fixture_file(entry.path())) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      return given + ": no such file or directory";
    }
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      auto size = fs::file_size(file, ec);
      if (!in || ec || size > kMaxFileBytes) {
        return file.string() +
               (size > kMaxFileBytes && !ec ? ": larger than 64 MiB" : ": cannot be read");
      }
      std::string content(std::istreambuf_iterator<char>(in), {});
      split_file(file.string(), content, out);
    }
  }
  return out;
}

std::vector<Result> load(const std::vector<Document>& documents, const Transport& send,
                         const LoadOptions& options) {
  std::vector<const Document*> ordered;
  for (const auto& doc : documents) {
    ordered.push_back(&doc);
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Document* a, const Document* b) { return rank(*a) < rank(*b); });
  Discovery discovery(send);
  std::vector<Result> results;
  bool waited = false;
  for (const Document* doc : ordered) {
    if (!waited && rank(*doc) > 0) {
      // Custom resources need their CRDs established before discovery knows them.
      waited = true;
      auto deadline = std::chrono::steady_clock::now() + options.crd_wait;
      for (size_t i = 0; i < results.size(); ++i) {
        if (results[i].outcome != Outcome::Failed) {
          wait_established(ordered[i]->name, send, deadline);
        }
      }
    }
    results.push_back(apply_one(*doc, discovery, send));
  }
  return results;
}

std::string report_line(const Result& result) {
  std::string where = result.file + ":" + std::to_string(result.line) + ": " + result.object;
  switch (result.outcome) {
    case Outcome::Created:
      return where + " created";
    case Outcome::Configured:
      return where + " configured";
    case Outcome::Unchanged:
      return where + " unchanged";
    case Outcome::Failed:
      break;
  }
  return where + " failed: " + result.message;
}

bool any_failed(const std::vector<Result>& results) {
  return std::any_of(results.begin(), results.end(),
                     [](const Result& r) { return r.outcome == Outcome::Failed; });
}

}  // namespace sandbox::fixtures
