// Fixtures: multi-document YAML (or JSON) files loaded into a cluster with apply semantics.
//
// Reading splits each file into its documents itself (on `---` lines) so that a document that
// does not parse is reported with its file and line and the others still load; a List document
// (kind ending in "List", with items) stands for its items. Loading orders the documents as
// `kubectl apply` users expect to be safe: CustomResourceDefinitions first (then waits until they
// are established), Namespaces next, then everything else in file order. Each document is one
// server-side apply (field manager kube-sandbox-fixtures, forced, fieldValidation=Strict): it
// changes its object entirely or not at all. The report says per object whether it was created,
// configured, unchanged or failed (with the server's reason), so a second load of the same files
// reports every object unchanged.
//
// Loading talks through a Transport (one REST call), so the same code seeds a server in-process
// before it turns ready (`serve --fixtures`) and a running one over HTTPS (`seed`).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"

namespace sandbox::fixtures {

struct Document {
  std::string file;
  int line = 0;        // 1-based line where the document starts
  std::string text;    // the document as YAML (JSON is YAML), sent as the apply body
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_;
  std::string error;   // set when the document cannot be loaded (syntax, missing fields)
};

// Reads files, and the .yaml/.yml/.json files of folders (sorted, not recursive), into their
// documents in order. Fails (naming the path) when a path does not exist or cannot be read; bad
// documents are returned with their error set.
common::Result<std::vector<Document>> read(const std::vector<std::string>& paths);

struct Reply {
  int status = 0;
  std::string body;
};
// One REST call: method, path with query, Content-Type (empty without a body), body.
using Transport = std::function<Reply(const std::string& method, const std::string& path,
                                      const std::string& content_type, const std::string& body)>;

enum class Outcome { Created, Configured, Unchanged, Failed };

struct Result {
  std::string file;
  int line = 0;
  std::string object;  // as kubectl names it: "deployment.apps/web", "namespace/demo"
  Outcome outcome = Outcome::Failed;
  std::string message;  // Failed: the reason (the server's Status message, or the read error)
};

struct LoadOptions {
  std::chrono::milliseconds crd_wait{std::chrono::seconds(10)};
};

// Applies the documents (see the ordering above); one result per document, in load order.
std::vector<Result> load(const std::vector<Document>& documents, const Transport& send,
                         const LoadOptions& options = {});

// "FILE:LINE: OBJECT created" (or "...: failed: MESSAGE"), one line per result.
std::string report_line(const Result& result);
bool any_failed(const std::vector<Result>& results);

}  // namespace sandbox::fixtures
