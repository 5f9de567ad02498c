#include "kubeconfig.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/base64.h"
#include "common/durable_file.h"
#include "common/read_file.h"

namespace sandbox {
namespace {

namespace fs = std::filesystem;

// The list sections of a kubeconfig whose entries are matched by `name`.
constexpr const char* kNamedLists[] = {"clusters", "users", "contexts"};

// Whether a plain scalar with this text would be read back as something other than a string
// (a bool, null or number, in YAML 1.1 as Go's YAML reader uses, or 1.2). Errs towards yes.
bool ambiguous_plain(const std::string& s) {
  if (s.empty()) {
    return true;
  }
  char first = s.front();
  if ((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.') {
    return true;
  }
  std::string lower;
  for (char c : s) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) {
      return true;
    }
  }
  return false;
}

// Emits `node` like YAML::Emitter << node, except that scalars keep their type: yaml-cpp drops
// the quotes of a loaded "true" or "123", which would turn them into a bool and a number.
//   - loaded quoted (tag "!")            -> double-quoted
//   - loaded plain (tag "?")             -> as yaml-cpp chooses (plain when it can)
//   - built here (no tag), e.g. a token  -> quoted when it would not read back as a string
//   - any other explicit tag             -> kept verbatim
void emit(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      if (node.Style() == YAML::EmitterStyle::Flow || node.size() == 0) {
        out << YAML::Flow;
      }
      out << YAML::BeginMap;
      for (const auto& entry : node) {
        out << YAML::Key;
        emit(out, entry.first);
        out << YAML::Value;
        emit(out, entry.second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      if (node.Style() == YAML::EmitterStyle::Flow || node.size() == 0) {
        out << YAML::Flow;
      }
      out << YAML::BeginSeq;
      for (const auto& item : node) {
        emit(out, item);
      }
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (!tag.empty() && tag != "?" && tag != "!") {
        out << YAML::VerbatimTag(tag);
      }
      if (tag == "!" || (tag.empty() && ambiguous_plain(node.Scalar()))) {
        out << YAML::DoubleQuoted;
      }
      out << node.Scalar();
      break;
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out << YAML::Null;
      break;
  }
}

std::string to_text(const YAML::Node& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, doc);
  return std::string(out.c_str()) + "\n";
}

YAML::Node named(const char* name, const char* field, const YAML::Node& body) {
  YAML::Node entry(YAML::NodeType::Map);
  entry[field] = body;
  entry["name"] = name;
  return entry;
}

// Creates the missing ancestors of `dir`, outermost first, each with mode 0700; the error when
// one cannot be made.
std::optional<std::string> make_parent_dirs(const fs::path& dir) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) {
      break;
    }
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return it->string() + ": " + std::strerror(errno);
    }
  }
  return std::nullopt;
}

// Replaces or appends, in `list`, the entries of `ours` with the same names; drops any later
// duplicates of those names. Other entries keep their order.
YAML::Node merge_named_list(const YAML::Node& list, const YAML::Node& ours) {
  YAML::Node merged(YAML::NodeType::Sequence);
  std::vector<bool> placed(ours.size(), false);
  auto match = [&](const YAML::Node& entry) -> std::optional<size_t> {
    if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar()) {
      return std::nullopt;
    }
    for (size_t i = 0; i < ours.size(); ++i) {
      if (ours[i]["name"].Scalar() == entry["name"].Scalar()) {
        return i;
      }
    }
    return std::nullopt;
  };
  for (const auto& entry : list) {
    std::optional<size_t> i = match(entry);
    if (!i) {
      merged.push_back(entry);
    } else if (!placed[*i]) {
      merged.push_back(ours[*i]);
      placed[*i] = true;
    }
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    if (!placed[i]) {
      merged.push_back(ours[i]);
    }
  }
  return merged;
}

}  // namespace

std::string make_kubeconfig(const std::string& server_url, const std::string& ca_pem,
                            const std::string& client_cert_pem, const std::string& client_key_pem,
                            const std::optional<std::string>& token) {
  YAML::Node cluster(YAML::NodeType::Map);
  cluster["certificate-authority-data"] = common::base64_encode(ca_pem);
  cluster["server"] = server_url;

  YAML::Node context(YAML::NodeType::Map);
  context["cluster"] = kKubeconfigName;
  context["user"] = kKubeconfigName;

  YAML::Node user(YAML::NodeType::Map);
  user["client-certificate-data"] = common::base64_encode(client_cert_pem);
  user["client-key-data"] = common::base64_encode(client_key_pem);
  if (token && !token->empty()) {
    user["token"] = *token;
  }

  // The key order kubectl itself writes.
  YAML::Node doc(YAML::NodeType::Map);
  doc["apiVersion"] = "v1";
  doc["clusters"].push_back(named(kKubeconfigName, "cluster", cluster));
  doc["contexts"].push_back(named(kKubeconfigName, "context", context));
  doc["current-context"] = kKubeconfigName;
  doc["kind"] = "Config";
  doc["preferences"] = YAML::Node(YAML::NodeType::Map);
  doc["users"].push_back(named(kKubeconfigName, "user", user));
  return to_text(doc);
}

std::optional<std::string> write_kubeconfig(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(path, ec)) {
    target = fs::weakly_canonical(path, ec);
    if (ec) {
      return path.string() + ": " + ec.message();
    }
  }
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (auto error = make_parent_dirs(dir)) {
    return error;
  }
  // A directory that cannot be fsynced is no failure: the new file is whole either way.
  auto written = common::write_file_durably(target, text, 0600);
  if (!written.error.empty()) {
    return std::move(written.error);
  }
  return std::nullopt;
}

std::optional<std::string> merge_kubeconfig(const fs::path& existing_path,
                                            const std::string& sandbox_text) {
  // A missing file is an empty one: there is nothing to keep.
  std::string existing;
  if (auto read = common::read_file(existing_path)) {
    existing = std::move(*read);
  } else if (!read.error().missing()) {
    return read.error().message;
  }

  YAML::Node doc;
  YAML::Node ours;
  try {
    ours = YAML::Load(sandbox_text);
  } catch (const YAML::Exception& e) {
    return std::string("sandbox kubeconfig: ") + e.what();
  }
  try {
    doc = YAML::Load(existing);
  } catch (const YAML::Exception& e) {
    return existing_path.string() + ": " + e.what();
  }
  if (doc.IsNull()) {
    return write_kubeconfig(existing_path, sandbox_text);  // nothing to keep
  }
  if (!doc.IsMap()) {
    return existing_path.string() + ": expected a mapping at the top level";
  }

  const YAML::Node& view = doc;  // lookups through a const node never insert keys
  if (!view["apiVersion"]) {
    doc["apiVersion"] = "v1";
  }
  if (!view["kind"]) {
    doc["kind"] = "Config";
  }
  for (const char* list : kNamedLists) {
    YAML::Node current = view[list];
    if (current && !current.IsNull() && !current.IsSequence()) {
      return existing_path.string() + ": " + list + ": expected a list";
    }
    YAML::Node mine = ours[list];
    if (!mine.IsSequence()) {
      return std::string("sandbox kubeconfig: ") + list + ": expected a list";
    }
    for (const auto& entry : mine) {
      if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar()) {
        return std::string("sandbox kubeconfig: ") + list + ": every entry needs a name";
      }
    }
    doc[list] = merge_named_list(current && current.IsSequence() ? current : YAML::Node(), mine);
  }
  doc["current-context"] = kKubeconfigName;
  return write_kubeconfig(existing_path, to_text(doc));
}

}  // namespace sandbox
