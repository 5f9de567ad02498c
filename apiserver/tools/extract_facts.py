#!/usr/bin/env python3
"""Extract the API facts kube-sandbox's registry is built from.

Usage: python3 apiserver/tools/extract_facts.py OPENAPI_V2_JSON OUT_DIR

Reads the Kubernetes v1.32 OpenAPI v2 document, merges apiserver/tools/overlay.json (facts the
document does not carry) and writes OUT_DIR/resources.json and OUT_DIR/schemas.json. The output
is deterministic (sorted keys, fixed list orders), so a rerun on the same inputs shows no diff.
Only facts are carried over: no description strings.
"""

import json
import os
import re
import sys

OVERLAY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "overlay.json")

# Operation -> discovery verb. "connect" operations map by HTTP method instead.
ACTION_VERBS = {
    "get": "get",
    "list": "list",
    "watch": "watch",
    "watchlist": "watch",
    "post": "create",
    "put": "update",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "deletecollection",
}
CONNECT_METHOD_VERBS = {
    "get": "get",
    "post": "create",
    "put": "update",
    "patch": "patch",
    "delete": "delete",
}
HTTP_METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
VERSION_RE = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
# Property keys carried into schemas.json besides the x-kubernetes-* extensions.
PROPERTY_KEYS = ("type", "format", "enum")
DEFINITION_KEYS = ("type", "format", "required", "enum")


def fail(message):
    sys.stderr.write("extract_facts: %s\n" % message)
    sys.exit(1)


def version_info(version):
    m = VERSION_RE.match(version)
    if not m:
        fail("unrecognised version %r" % version)
    major = int(m.group(1))
    level = m.group(2) or "ga"
    minor = int(m.group(3) or 0)
    return level, major, minor


def version_priority(version):
    """Sort key, most preferred first: GA > beta > alpha, then higher numbers."""
    level, major, minor = version_info(version)
    rank = {"ga": 0, "beta": 1, "alpha": 2}[level]
    return (rank, -major, -minor)


def group_resource(group, resource):
    return resource if group == "" else resource + "." + group


def group_kind(group, kind):
    return kind if group == "" else kind + "." + group


def split_path(path):
    """Returns (group, version, segments after the version) or None for non-resource paths."""
    parts = path.strip("/").split("/")
    if len(parts) >= 2 and parts[0] == "api" and parts[1] == "v1":
        return "", "v1", parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def classify(segments):
    """Maps the segments after /api/v1 or /apis/<g>/<v> to
    (resource, subresource or None, namespaced, is_item), or None for paths that are not
    resource endpoints (discovery documents)."""
    segs = list(segments)
    if segs and segs[0] == "watch":
        segs = segs[1:]
    # Connect subresources carry a trailing /{path} variant: same subresource.
    if segs and segs[-1] == "{path}":
        segs = segs[:-1]
    namespaced = False
    if len(segs) >= 3 and segs[0] == "namespaces" and segs[1] == "{namespace}":
        namespaced = True
        segs = segs[2:]
    if len(segs) == 1:
        return segs[0], None, namespaced, False
    if len(segs) == 2 and segs[1] == "{name}":
        return segs[0], None, namespaced, True
    if len(segs) == 3 and segs[1] == "{name}":
        return segs[0], segs[2], namespaced, True
    return None


def operation_verbs(method, op):
    action = op.get("x-kubernetes-action")
    if action == "connect":
        verb = CONNECT_METHOD_VERBS.get(method)
        return [verb] if verb else []
    if action is None:
        return []
    verb = ACTION_VERBS.get(action)
    if verb is None:
        fail("unknown x-kubernetes-action %r" % action)
    return [verb]


def gvk_of(op):
    gvk = op.get("x-kubernetes-group-version-kind")
    if gvk is None:
        return None
    return {"group": gvk["group"], "version": gvk["version"], "kind": gvk["kind"]}


def collect_resources(doc):
    """Walks every path and operation; returns {(group, version, resource): raw}."""
    raw = {}
    for path in sorted(doc["paths"]):
        split = split_path(path)
        if split is None:
            continue
        group, version, segments = split
        shape = classify(segments)
        if shape is None:
            continue
        resource, sub, namespaced, _ = shape
        item = doc["paths"][path]
        ops = [(m, item[m]) for m in HTTP_METHODS if m in item]
        if not any(op.get("x-kubernetes-action") for _, op in ops):
            continue  # discovery endpoints (APIResourceList)
        key = (group, version, resource)
        entry = raw.setdefault(
            key, {"verbs": set(), "kinds": set(), "namespaced": None, "subresources": {}})
        if sub is None:
            for method, op in ops:
                entry["verbs"].update(operation_verbs(method, op))
                gvk = gvk_of(op)
                if gvk:
                    entry["kinds"].add((gvk["group"], gvk["version"], gvk["kind"]))
            # A namespaced resource also has cluster-wide list/watch paths; those do not decide
            # its scope.
            if namespaced:
                entry["namespaced"] = True
            elif entry["namespaced"] is None and not _is_all_namespaces_list(ops):
                entry["namespaced"] = False
        else:
            subentry = entry["subresources"].setdefault(sub, {"verbs": set(), "kinds": set()})
            for method, op in ops:
                subentry["verbs"].update(operation_verbs(method, op))
                gvk = gvk_of(op)
                if gvk:
                    subentry["kinds"].add((gvk["group"], gvk["version"], gvk["kind"]))
            if namespaced:
                entry["namespaced"] = True
    return raw


def _is_all_namespaces_list(ops):
    actions = {op.get("x-kubernetes-action") for _, op in ops}
    return actions <= {"list", "watchlist"}


def single(values, what):
    if len(values) != 1:
        fail("expected one %s, found %r" % (what, sorted(values)))
    return next(iter(values))


def expand_columns(columns):
    """Overlay columns are [name, type, format, priority] rows; the output spells them out."""
    return [{"name": n, "type": t, "format": f, "priority": p} for n, t, f, p in columns]


def normalise_selector(selector):
    return {
        "labels": sorted(selector["labels"]),
        "aliases": dict(selector.get("aliases", {})),
        "error_style": selector["error_style"],
    }


def build_rows(doc, overlay):
    raw = collect_resources(doc)
    res_overlay = overlay["resources"]
    tables = {gk: expand_columns(cols) for gk, cols in overlay["tables"].items()}
    selectors = {key: normalise_selector(sel) for key, sel in overlay["field_selectors"].items()}
    default_selector = normalise_selector(overlay["default_field_selectors"])
    default_table = expand_columns(overlay["default_table"])
    sub_gates = overlay["feature_gated_subresources"]
    used_overlay = set()
    used_tables = set()
    used_selectors = set()
    rows = []
    for (group, version, resource) in sorted(raw):
        entry = raw[(group, version, resource)]
        if entry["namespaced"] is None:
            # Only seen via cluster-wide list paths: impossible for a well-formed document.
            fail("scope unknown for %s/%s %s" % (group, version, resource))
        kind_group, kind_version, kind = single(entry["kinds"], "kind of " + resource)
        if (kind_group, kind_version) != (group, version):
            fail("%s/%s %s has kind from %s/%s" % (group, version, resource, kind_group,
                                                  kind_version))
        level, _, _ = version_info(version)
        gr = group_resource(group, resource)
        gk = group_kind(group, kind)
        extra = res_overlay.get(gr, {})
        if gr in res_overlay:
            used_overlay.add(gr)
        verbs = sorted(entry["verbs"])
        persisted = extra.get("persisted", "get" in verbs)
        etcd_prefix = None
        if persisted:
            etcd_prefix = extra.get("etcd_prefix", "/registry/" + resource)
        subresources = []
        for name in sorted(entry["subresources"]):
            sub = entry["subresources"][name]
            sg, sv, sk = single(sub["kinds"], "kind of %s/%s" % (resource, name))
            full = "%s/%s" % (gr, name)
            gate = sub_gates.get(full)
            if gate is not None:
                used_overlay.add("subresource:" + full)
            # A subresource serving another kind (Scale) prints that kind's table.
            sub_gk = group_kind(sg, sk)
            sub_table = None
            if sub_gk != group_kind(group, kind) and sub_gk in tables:
                used_tables.add(sub_gk)
                sub_table = tables[sub_gk]
            subresources.append({
                "name": name,
                "verbs": sorted(sub["verbs"]),
                "kind": {"group": sg, "version": sv, "kind": sk},
                "default_enabled": gate is None,
                "feature_gate": gate,
                "table_columns": sub_table,
            })
        if gk in tables:
            used_tables.add(gk)
            table = tables[gk]
        else:
            table = default_table
        table_name = extra.get("table", gk)
        if table_name != gk:
            if table_name not in tables:
                fail("%s names missing table %s" % (gr, table_name))
            used_tables.add(table_name)
            table = tables[table_name]
        sel_key = "%s/%s" % (gk, version)
        if sel_key in selectors:
            used_selectors.add(sel_key)
            selector = selectors[sel_key]
        else:
            selector = default_selector
        rows.append({
            "group": group,
            "version": version,
            "resource": resource,
            "kind": kind,
            "singular_name": extra.get("singular_name", kind.lower()),
            "namespaced": entry["namespaced"],
            "stability": level,
            "default_enabled": level == "ga",
            "verbs": verbs,
            "short_names": extra.get("short_names", []),
            "categories": extra.get("categories", []),
            "etcd_prefix": etcd_prefix,
            "field_selectors": selector,
            "table_columns": table,
            "subresources": subresources,
        })
    for gr in res_overlay:
        if gr not in used_overlay:
            fail("overlay resource %s matches no resource in the document" % gr)
    for full in sub_gates:
        if "subresource:" + full not in used_overlay:
            fail("overlay subresource %s matches no subresource in the document" % full)
    for gk in tables:
        if gk not in used_tables:
            fail("overlay table %s matches no kind in the document" % gk)
    for key in selectors:
        if key not in used_selectors:
            fail("overlay field selectors %s match no kind in the document" % key)
    return rows


def build_groups(rows, overlay):
    versions = {}
    for row in rows:
        versions.setdefault(row["group"], set()).add(row["version"])
    order = overlay["group_order"]
    missing = sorted(g for g in versions if g not in order)
    if missing:
        fail("groups missing from overlay group_order: %r" % missing)
    groups = []
    for name in order:
        if name not in versions:
            fail("overlay group_order names unknown group %r" % name)
        ordered = sorted(versions[name], key=version_priority)
        served = [v for v in ordered if version_info(v)[0] == "ga"]
        groups.append({
            "name": name,
            "versions": [{
                "version": v,
                "stability": version_info(v)[0],
                "default_enabled": version_info(v)[0] == "ga",
            } for v in ordered],
            "preferred_version": served[0] if served else ordered[0],
        })
    return groups


def ref_name(ref):
    prefix = "#/definitions/"
    if not ref.startswith(prefix):
        fail("unexpected $ref %r" % ref)
    return ref[len(prefix):]


def slim_schema(node, keys, refs):
    """Copies the fact-bearing keys of a schema node; collects referenced definitions."""
    out = {}
    for key in keys:
        if key in node:
            out[key] = node[key]
    for key, value in node.items():
        if key.startswith("x-kubernetes-"):
            out[key] = value
    if "$ref" in node:
        name = ref_name(node["$ref"])
        out["$ref"] = name
        refs.add(name)
    if "items" in node:
        out["items"] = slim_schema(node["items"], PROPERTY_KEYS, refs)
    if "additionalProperties" in node:
        extra = node["additionalProperties"]
        out["additionalProperties"] = (
            slim_schema(extra, PROPERTY_KEYS, refs) if isinstance(extra, dict) else extra)
    if "properties" in node:
        out["properties"] = {
            name: slim_schema(prop, PROPERTY_KEYS, refs)
            for name, prop in node["properties"].items()
        }
    return out


def build_schemas(doc, rows):
    definitions = doc["definitions"]
    by_gvk = {}
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            by_gvk.setdefault((gvk["group"], gvk["version"], gvk["kind"]), []).append(name)
    roots = set()

    def add_root(group, version, kind, required=True):
        names = by_gvk.get((group, version, kind))
        if not names:
            if required:
                fail("no definition for %s/%s %s" % (group, version, kind))
            return
        roots.update(names)

    for row in rows:
        add_root(row["group"], row["version"], row["kind"])
        add_root(row["group"], row["version"], row["kind"] + "List", required=False)
        for sub in row["subresources"]:
            # Connect options kinds (PodExecOptions, ...) are query parameters, not definitions.
            add_root(sub["kind"]["group"], sub["kind"]["version"], sub["kind"]["kind"],
                     required=False)
    # Types every group/version serves beside its kinds: errors, delete bodies, watch events and
    # the discovery documents (/api, /apis, /apis/<g>/<v>).
    for kind in ("Status", "DeleteOptions", "WatchEvent", "APIVersions", "APIGroupList",
                 "APIGroup", "APIResourceList"):
        add_root("", "v1", kind)
    # Bodies without a kind: /version and the patch request body.
    for name in ("io.k8s.apimachinery.pkg.version.Info",
                 "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"):
        if name in definitions:
            roots.add(name)

    out = {}
    pending = sorted(roots)
    while pending:
        name = pending.pop()
        if name in out:
            continue
        if name not in definitions:
            fail("dangling $ref %s" % name)
        refs = set()
        out[name] = slim_schema(definitions[name], DEFINITION_KEYS, refs)
        pending.extend(sorted(refs - set(out)))
    return out


def check_no_descriptions(value, where="$", in_properties=False):
    """No description strings may reach the output. A field *named* description (JSONSchemaProps
    has one) is a property schema, an object inside a properties map, and is allowed."""
    if isinstance(value, dict):
        for key, child in value.items():
            if key == "description" and not (in_properties and isinstance(child, dict)):
                fail("description leaked at %s" % where)
            check_no_descriptions(child, where + "." + key, key == "properties")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            check_no_descriptions(child, "%s[%d]" % (where, i))


def write_json(path, value, indent):
    check_no_descriptions(value)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        if indent:
            json.dump(value, f, sort_keys=True, indent=indent, ensure_ascii=True)
        else:
            json.dump(value, f, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        f.write("\n")


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: %s OPENAPI_V2_JSON OUT_DIR\n" % argv[0])
        return 2
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    with open(OVERLAY_PATH, encoding="utf-8") as f:
        overlay = json.load(f)
    rows = build_rows(doc, overlay)
    resources = {
        "kubernetes_version": overlay["kubernetes_version"],
        "groups": build_groups(rows, overlay),
        "resources": rows,
    }
    schemas = {"definitions": build_schemas(doc, rows)}
    os.makedirs(argv[2], exist_ok=True)
    # resources.json is small and reviewed by people: indented. schemas.json is large: compact.
    write_json(os.path.join(argv[2], "resources.json"), resources, indent=1)
    write_json(os.path.join(argv[2], "schemas.json"), schemas, indent=0)
    enabled = sum(1 for r in rows if r["default_enabled"])
    sys.stdout.write("resources: %d (%d enabled by default); definitions: %d\n" %
                     (len(rows), enabled, len(schemas["definitions"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
