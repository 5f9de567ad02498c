// Writing the model out: operations and path items as JSON text for either flavour, schema
// definitions converted for the flavour, and the definitions a document's paths reach.
#include "endpoints/openapi_json.h"

#include <algorithm>
#include <deque>
#include <utility>

namespace apiserver::endpoints::openapi_detail {
namespace {

std::string ref_to(Flavor f, const std::string& definition) {
  return (f == Flavor::V2 ? "#/definitions/" : "#/components/schemas/") + definition;
}

// The documents are large (about 1 MB for v2) and mostly operations, so operations are written
// as text directly, keys in sorted order like the rest of the document.
void put_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
}

void put_key(std::string& out, const char* key) {
  out += '"';
  out += key;
  out += "\":";
}

void put_strings(std::string& out, const Strings& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, list[i]);
  }
  out += ']';
}

void put_gvk(std::string& out, const registry::GroupVersionKind& gvk) {
  out += "{\"group\":";
  put_string(out, gvk.group);
  out += ",\"kind\":";
  put_string(out, gvk.kind);
  out += ",\"version\":";
  put_string(out, gvk.version);
  out += '}';
}

const char* reason(const std::string& code) {
  if (code == "200") {
    return "OK";
  }
  if (code == "201") {
    return "Created";
  }
  if (code == "202") {
    return "Accepted";
  }
  return "Unauthorized";
}

void put_ref(std::string& out, Flavor f, const std::string& definition) {
  out += "{\"$ref\":";
  put_string(out, ref_to(f, definition));
  out += '}';
}

void put_reply_schema(std::string& out, Flavor f, const Reply& r) {
  if (r.ref.empty()) {
    out += "{\"type\":\"string\"}";
  } else {
    put_ref(out, f, r.ref);
  }
}

void put_param(std::string& out, Flavor f, const Param& p) {
  out += "{\"in\":";
  put_string(out, p.in);
  out += ",\"name\":";
  put_string(out, p.name);
  if (p.required) {
    out += ",\"required\":true";
  }
  if (f == Flavor::V2) {
    if (p.in == "body") {
      out += ",\"schema\":";
      put_ref(out, f, p.body);
    } else {
      out += ",\"type\":";
      put_string(out, p.type);
      out += ",\"uniqueItems\":true";
    }
  } else {
    out += ",\"schema\":{\"type\":";
    put_string(out, p.type);
    out += ",\"uniqueItems\":true}";
  }
  out += '}';
}

void put_op(std::string& out, Flavor f, const Op& o, const std::vector<Param>& hoisted) {
  auto own = [&](const Param& p) {
    return std::find(hoisted.begin(), hoisted.end(), p) == hoisted.end();
  };
  const Param* request_body = nullptr;
  std::vector<const Param*> params;
  for (const auto& p : o.params) {
    if (!own(p)) {
      continue;
    }
    if (f == Flavor::V3 && p.in == "body") {
      request_body = &p;
    } else {
      params.push_back(&p);
    }
  }
  out += '{';
  if (f == Flavor::V2) {
    put_key(out, "consumes");
    put_strings(out, *o.consumes);
    out += ',';
  }
  put_key(out, "operationId");
  put_string(out, o.id);
  if (!params.empty()) {
    out += ',';
    put_key(out, "parameters");
    out += '[';
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) {
        out += ',';
      }
      put_param(out, f, *params[i]);
    }
    out += ']';
  }
  if (f == Flavor::V2) {
    out += ',';
    put_key(out, "produces");
    put_strings(out, *o.produces);
  }
  if (request_body) {
    out += ",\"requestBody\":{\"content\":{";
    for (size_t i = 0; i < o.consumes->size(); ++i) {
      if (i) {
        out += ',';
      }
      put_string(out, (*o.consumes)[i]);
      out += ":{\"schema\":";
      put_ref(out, f, request_body->body);
      out += '}';
    }
    out += '}';
    if (request_body->required) {
      out += ",\"required\":true";
    }
    out += '}';
  }
  out += ",\"responses\":{";
  for (const auto& r : o.replies) {
    put_string(out, r.code);
    out += ':';
    if (f == Flavor::V2) {
      out += "{\"description\":";
      put_string(out, reason(r.code));
      out += ",\"schema\":";
      put_reply_schema(out, f, r);
    } else {
      out += "{\"content\":{";
      for (size_t i = 0; i < o.produces->size(); ++i) {
        if (i) {
          out += ',';
        }
        put_string(out, (*o.produces)[i]);
        out += ":{\"schema\":";
        put_reply_schema(out, f, r);
        out += '}';
      }
      out += "},\"description\":";
      put_string(out, reason(r.code));
    }
    out += "},";
  }
  out += "\"401\":{\"description\":\"Unauthorized\"}}";
  if (f == Flavor::V2) {
    out += ",\"schemes\":[\"https\"]";
  }
  out += ",\"tags\":[";
  put_string(out, o.tag);
  out += ']';
  if (!o.action.empty()) {
    out += ",\"x-kubernetes-action\":";
    put_string(out, o.action);
  }
  if (o.gvk) {
    out += ",\"x-kubernetes-group-version-kind\":";
    put_gvk(out, *o.gvk);
  }
  out += '}';
}

// Parameters every operation of the path shares move to the path item, as upstream lists them.
// In v3 only path parameters and "pretty" move: kubectl looks for fieldValidation among the
// parameters of the PATCH operation itself.
void put_path_item(std::string& out, Flavor f, const PathItem& item) {
  std::vector<Param> hoisted;
  if (!item.ops.empty()) {
    for (const auto& p : item.ops.front().params) {
      if (p.in == "body" || (f == Flavor::V3 && p.in != "path" && p.name != "pretty")) {
        continue;
      }
      bool everywhere = std::all_of(item.ops.begin(), item.ops.end(), [&](const Op& o) {
        return std::find(o.params.begin(), o.params.end(), p) != o.params.end();
      });
      if (everywhere) {
        hoisted.push_back(p);
      }
    }
  }
  // Methods in key order, with "parameters" where it sorts.
  std::vector<std::pair<std::string, const Op*>> entries;
  for (const auto& o : item.ops) {
    entries.emplace_back(o.method, &o);
  }
  if (!hoisted.empty()) {
    entries.emplace_back("parameters", nullptr);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  out += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, entries[i].first);
    out += ':';
    if (entries[i].second) {
      put_op(out, f, *entries[i].second, hoisted);
    } else {
      out += '[';
      for (size_t k = 0; k < hoisted.size(); ++k) {
        if (k) {
          out += ',';
        }
        put_param(out, f, hoisted[k]);
      }
      out += ']';
    }
  }
  out += '}';
}

}  // namespace

void put_paths(std::string& out, Flavor f, const Model& model,
               const std::vector<std::string>& paths) {
  std::vector<std::string> sorted = paths;
  std::sort(sorted.begin(), sorted.end());
  out += '{';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) {
      out += ',';
    }
    put_string(out, sorted[i]);
    out += ':';
    put_path_item(out, f, model.paths.at(sorted[i]));
  }
  out += '}';
}

namespace {

json convert_map(Flavor f, const json& m) {
  if (!m.is_object()) {
    return m;  // a CRD's schema is client data: never iterate a non-object for keys
  }
  json out = json::object();
  for (auto it = m.begin(); it != m.end(); ++it) {
    out[it.key()] = convert_schema(f, it.value());
  }
  return out;
}

}  // namespace

json convert_schema(Flavor f, const json& schema) {
  if (!schema.is_object()) {
    return schema;
  }
  json out = json::object();
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (k == "properties" || k == "patternProperties" || k == "definitions") {
      out[k] = convert_map(f, v);
    } else if (k == "items" || k == "additionalProperties" || k == "not") {
      out[k] = v.is_object() ? convert_schema(f, v) : v;
    } else if ((k == "allOf" || k == "anyOf" || k == "oneOf") && v.is_array()) {
      json list = json::array();
      for (const auto& s : v) {
        list.push_back(convert_schema(f, s));
      }
      out[k] = std::move(list);
    } else if (k == "$ref" && v.is_string()) {
      out[k] = ref_to(f, v.get<std::string>());
    } else {
      out[k] = v;
    }
  }
  if (f == Flavor::V3 && out.contains("$ref") && out.size() > 1 && out["$ref"].is_string()) {
    json ref = {{"$ref", out["$ref"]}};
    out.erase("$ref");
    out["allOf"] = json::array({std::move(ref)});
  }
  return out;
}

void collect_refs(const json& schema, std::set<std::string>& out) {
  if (schema.is_object()) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        out.insert(it.value().get<std::string>());
      } else if (it.key() == "properties" || it.key() == "patternProperties") {
        for (const auto& [name, sub] : it.value().items()) {
          (void)name;
          collect_refs(sub, out);
        }
      } else if (it.value().is_structured()) {
        collect_refs(it.value(), out);
      }
    }
  } else if (schema.is_array()) {
    for (const auto& s : schema) {
      collect_refs(s, out);
    }
  }
}

// Writes the definitions reachable from the operations of `paths` as one JSON object, from the
// definitions serialised at construction (and the generated ones of kinds the facts lack).
void put_definitions(std::string& out, Flavor f, const Model& model,
                     const std::vector<std::string>& paths,
                     const std::map<std::string, std::string>& definitions,
                     const std::map<std::string, std::vector<std::string>>& refs) {
  std::set<std::string> seen;
  std::deque<std::string> queue;
  auto visit = [&](const std::string& name) {
    if (!name.empty() && seen.insert(name).second) {
      queue.push_back(name);
    }
  };
  for (const auto& p : paths) {
    for (const auto& o : model.paths.at(p).ops) {
      for (const auto& param : o.params) {
        visit(param.body);
      }
      for (const auto& r : o.replies) {
        visit(r.ref);
      }
    }
  }
  std::map<std::string, std::string> generated;
  while (!queue.empty()) {
    std::string name = std::move(queue.front());
    queue.pop_front();
    auto extra = model.extra_definitions.find(name);
    if (extra != model.extra_definitions.end()) {
      generated[name] = convert_schema(f, extra->second).dump();
      std::set<std::string> more;
      collect_refs(extra->second, more);
      for (const auto& m : more) {
        visit(m);
      }
      continue;
    }
    auto r = refs.find(name);
    if (r != refs.end()) {
      for (const auto& m : r->second) {
        visit(m);
      }
    }
  }
  out += '{';
  bool first = true;
  for (const auto& name : seen) {  // sorted
    const std::string* text = nullptr;
    auto g = generated.find(name);
    if (g != generated.end()) {
      text = &g->second;
    } else {
      auto d = definitions.find(name);
      if (d == definitions.end()) {
        continue;  // a dangling reference is a facts defect; the facts tests catch it
      }
      text = &d->second;
    }
    if (!first) {
      out += ',';
    }
    first = false;
    put_string(out, name);
    out += ':';
    out += *text;
  }
  out += '}';
}

}  // namespace apiserver::endpoints::openapi_detail
