#!/usr/bin/env python3
"""Extract the Kubernetes protobuf wire facts the request decoder is built from.

Usage: python3 apiserver/tools/extract_proto_facts.py KUBECTL_V1_32_BINARY SCHEMAS_JSON OUT_JSON

A kubectl v1.32 binary (linux/amd64, as released) carries two kinds of facts about every built-in
API type, and this script reads both:
- the FileDescriptorProto of each generated.proto (gzipped, registered by gogo-protobuf): message
  names, field names, numbers, protobuf types, labels, map entries, and the gogo `nullable`
  option (false for a Go value field, absent for a Go pointer);
- the Go runtime type data (reflect): per struct field the Go kind and the struct tag, whose
  `json:"name,omitempty"` gives the JSON name, omitempty and `,inline`.
SCHEMAS_JSON (apiserver/facts/schemas.json) maps group/version/kind to definitions and is used to
cross-check the JSON names. Only names, numbers and types reach the output; it is deterministic.
Python 3 standard library only.
"""

import json
import re
import struct
import sys
import zlib

# FieldDescriptorProto.type -> the scalar name written to the facts (11 = message).
SCALARS = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
           7: "fixed32", 8: "bool", 9: "string", 12: "bytes", 13: "uint32", 14: "enum",
           15: "sfixed32", 16: "sfixed64", 17: "sint32", 18: "sint64"}
GOGO_NULLABLE = 65001
# Go reflect kinds (internal/abi) used below.
KIND_MAP, KIND_POINTER, KIND_SLICE, KIND_STRUCT, KIND_ARRAY = 21, 22, 23, 25, 17
GO_KIND_NAMES = {1: "bool", 5: "int32", 6: "int64", 13: "float32", 14: "float64", 21: "map",
                 22: "pointer", 23: "slice", 24: "string", 25: "struct", 8: "uint8", 2: "int",
                 10: "uint32", 11: "uint64", 20: "interface"}
TAG_RE = re.compile(r'(\w+):"([^"]*)"')


def fail(message):
    sys.stderr.write("extract_proto_facts: %s\n" % message)
    sys.exit(1)


# ---- protobuf wire reading (for the descriptors) ----

def read_varint(buf, i):
    result = shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, i


def wire_fields(buf):
    """[(number, value)] of one message; value is int for varints, bytes otherwise."""
    out, i = [], 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(buf, i)
        elif wire == 2:
            n, i = read_varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 1:
            value, i = buf[i:i + 8], i + 8
        elif wire == 5:
            value, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.append((number, value))
    return out


def first(fields, number, default=None):
    for n, v in fields:
        if n == number:
            return v
    return default


def all_of(fields, number):
    return [v for n, v in fields if n == number]


# ---- ELF and Go runtime type data ----

class Binary:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 2 or d[5] != 1:
            fail("%s: not a 64-bit little-endian ELF file" % path)
        phoff, shoff = struct.unpack_from("<QQ", d, 0x20)
        phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", d, 0x36)
        self.segments = []
        for k in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
                "<IIQQQQ", d, phoff + k * phentsize)
            if p_type == 1:  # PT_LOAD
                self.segments.append((p_vaddr, p_offset, p_filesz))
        sections = []
        for k in range(shnum):
            sh = struct.unpack_from("<IIQQQQ", d, shoff + k * shentsize)
            sections.append(sh)
        strtab_off = sections[shstrndx][4]
        self.sections = {}
        for name_off, _, _, addr, offset, size in sections:
            end = d.index(b"\0", strtab_off + name_off)
            self.sections[d[strtab_off + name_off:end].decode()] = (addr, offset, size)
        for needed in (".rodata", ".typelink"):
            if needed not in self.sections:
                fail("%s: no %s section (not a Go binary?)" % (path, needed))
        # moduledata.types: the Go linker starts .rodata with the type data.
        self.types_base = self.sections[".rodata"][0]

    def off(self, va):
        for vaddr, offset, size in self.segments:
            if vaddr <= va < vaddr + size:
                return offset + va - vaddr
        raise ValueError("address %#x outside the file" % va)

    def u8(self, va):
        return self.data[self.off(va)]

    def u64(self, va):
        return struct.unpack_from("<Q", self.data, self.off(va))[0]

    def i32(self, va):
        return struct.unpack_from("<i", self.data, self.off(va))[0]

    def name(self, va):
        """abi.Name at va: (string, tag)."""
        o = self.off(va)
        flags = self.data[o]
        n, o = read_varint(self.data, o + 1)
        text = self.data[o:o + n].decode()
        o += n
        tag = ""
        if flags & 2:
            n, o = read_varint(self.data, o)
            tag = self.data[o:o + n].decode()
        return text, tag

    def gzip_blobs(self):
        """Every gzip member in the file (gogo registers each descriptor gzipped)."""
        for m in re.finditer(rb"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff", self.data):
            try:
                yield zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(
                    self.data[m.start():m.start() + (1 << 22)])
            except zlib.error:
                continue


# Go 1.22/1.23 abi.Type (64-bit): Kind_ at 23, TFlag at 20, Str (nameOff) at 40, size 48.
# PtrType/SliceType: Elem at 48. MapType: Key 48, Elem 56. StructType: PkgPath 48, Fields
# slice 56/64. UncommonType follows StructType at 80: PkgPath nameOff. StructField: 24 bytes.
class GoTypes:
    def __init__(self, binary):
        self.b = binary
        self.structs = {}  # (pkgpath, type name) -> [field dict]
        self._seen = set()
        addr, offset, size = binary.sections[".typelink"]
        for k in range(size // 4):
            rel = struct.unpack_from("<i", binary.data, offset + 4 * k)[0]
            self._walk(binary.types_base + rel)

    def kind(self, t):
        return self.b.u8(t + 23) & 0x1F

    def type_name(self, t):
        text, _ = self.b.name(self.b.types_base + self.b.i32(t + 40))
        if self.b.u8(t + 20) & 2:  # TFlagExtraStar
            text = text[1:]
        return text

    def map_elem(self, t):
        return self.b.u64(t + 56)

    def _walk(self, t):
        work = [t]
        while work:
            t = work.pop()
            if t == 0 or t in self._seen:
                continue
            self._seen.add(t)
            k = self.kind(t)
            if k in (KIND_POINTER, KIND_SLICE, KIND_ARRAY):
                work.append(self.b.u64(t + 48))
            elif k == KIND_MAP:
                work.append(self.b.u64(t + 48))
                work.append(self.b.u64(t + 56))
            elif k == KIND_STRUCT:
                fields_ptr, count = self.b.u64(t + 56), self.b.u64(t + 64)
                fields = []
                for i in range(count):
                    fname, tag = self.b.name(self.b.u64(fields_ptr + 24 * i))
                    ftype = self.b.u64(fields_ptr + 24 * i + 8)
                    work.append(ftype)
                    fields.append({"go_name": fname, "tag": tag, "type": ftype})
                if self.b.u8(t + 20) & 1:  # TFlagUncommon: a named type
                    pkg, _ = self.b.name(self.b.types_base + self.b.i32(t + 80))
                    short = self.type_name(t).split(".")[-1]
                    if pkg.startswith("k8s.io/"):
                        self.structs.setdefault((pkg, short), fields)


def parse_tags(tag):
    return dict(TAG_RE.findall(tag))


# ---- building the facts ----

def load_descriptors(binary):
    files = {}
    for blob in binary.gzip_blobs():
        if blob[:1] != b"\x0a":
            continue
        try:
            fields = wire_fields(blob)
        except (ValueError, IndexError):
            continue
        name = first(fields, 1, b"").decode(errors="replace")
        if name.startswith("k8s.io/") and name.endswith("/generated.proto") and \
                not name.startswith("k8s.io/metrics/"):
            files.setdefault(name, fields)
    if not files:
        fail("no k8s.io generated.proto descriptors found in the binary")
    return files


def proto_type(fd):
    t = first(fd, 5)
    if t == 11:
        return first(fd, 6).decode().lstrip(".")
    if t not in SCALARS:
        fail("unsupported field type %r" % t)
    return SCALARS[t]


def collect_messages(files):
    """{full message name: (go package, short Go name, [field descriptor fields], map entries)}"""
    messages, map_entries = {}, {}

    def visit(package, go_pkg, prefix, msg, go_prefix):
        name = first(msg, 1).decode()
        full = "%s.%s" % (prefix, name)
        options = wire_fields(first(msg, 7, b""))
        if first(options, 7) == 1:  # MessageOptions.map_entry
            entry = {wire_fields_name(f): f for f in map(wire_fields, all_of(msg, 2))}
            map_entries[full] = (proto_type(entry["key"]), proto_type(entry["value"]))
            return
        messages[full] = (go_pkg, go_prefix + name, [wire_fields(f) for f in all_of(msg, 2)])
        for nested in all_of(msg, 3):
            visit(package, go_pkg, full, wire_fields(nested), go_prefix + name + "_")

    for fname in sorted(files):
        fields = files[fname]
        package = first(fields, 2).decode()
        go_pkg = first(wire_fields(first(fields, 8, b"")), 11, b"").decode()
        if not go_pkg:
            fail("%s: no go_package option" % fname)
        for msg in all_of(fields, 4):
            visit(package, go_pkg, package, wire_fields(msg), "")
    return messages, map_entries


def wire_fields_name(fd):
    return first(fd, 1).decode()


def go_kind_name(go, t):
    k = go.kind(t)
    return GO_KIND_NAMES.get(k, "kind%d" % k)


def build(binary_path, schemas_path):
    binary = Binary(binary_path)
    files = load_descriptors(binary)
    messages, map_entries = collect_messages(files)
    go = GoTypes(binary)
    with open(schemas_path) as f:
        definitions = json.load(f)["definitions"]

    out_messages = {}
    array_wrappers = set()
    missing_go = []
    for full in sorted(messages):
        go_pkg, go_name, fds = messages[full]
        go_fields = go.structs.get((go_pkg, go_name))
        by_number = {}
        if go_fields is None:
            missing_go.append(full)
        else:
            for gf in go_fields:
                tags = parse_tags(gf["tag"])
                if "protobuf" not in tags or tags["protobuf"] == "-":
                    continue
                parts = tags["protobuf"].split(",")
                by_number[int(parts[1])] = (gf, tags)
        fields = []
        for fd in sorted(fds, key=lambda x: first(x, 3)):
            number = first(fd, 3)
            pname = first(fd, 1).decode()
            repeated = first(fd, 4) == 3
            ptype = proto_type(fd)
            options = wire_fields(first(fd, 8, b""))
            nullable = first(options, GOGO_NULLABLE, 1) != 0
            entry = {"number": number, "name": pname, "type": ptype}
            if ptype in map_entries:
                key, value = map_entries[ptype]
                entry["type"] = "map"
                entry["map_key"], entry["map_value"] = key, value
            elif repeated:
                entry["repeated"] = True
            if number in by_number:
                gf, tags = by_number[number]
                json_tag = tags.get("json", "").split(",")
                json_name = json_tag[0]
                inline = "inline" in json_tag[1:]
                if inline:
                    entry["inline"] = True
                    json_name = ""
                if json_name and json_name != pname:
                    entry["json"] = json_name
                if "omitempty" in json_tag[1:]:
                    entry["omitempty"] = True
                t = gf["type"]
                entry["go"] = go_kind_name(go, t)
                # A named Go slice (e.g. Verbs, ExtraValue) is a message with one repeated
                # `items` field on the wire and a plain array in JSON.
                if go.kind(t) == KIND_SLICE and ptype in messages and not repeated:
                    array_wrappers.add(ptype)
                if entry["type"] == "map" and entry["map_value"] in messages:
                    if go.kind(go.map_elem(t)) == KIND_SLICE:
                        array_wrappers.add(entry["map_value"])
            else:
                # No Go struct data: a pointer unless gogo says nullable=false.
                entry["omitempty"] = True
                entry["go"] = "pointer" if nullable else "value"
            fields.append(entry)
        out_messages[full] = {"fields": fields}
    for name in sorted(array_wrappers):
        fields = out_messages[name]["fields"]
        if len(fields) != 1 or fields[0]["name"] != "items" or not fields[0].get("repeated"):
            fail("%s: a named Go slice but not a single repeated items field" % name)
        out_messages[name]["json"] = "array"

    kinds = {}
    for def_name in sorted(definitions):
        if not def_name.startswith("io.k8s."):
            continue
        message = "k8s.io." + def_name[len("io.k8s."):]
        if message not in out_messages:
            continue
        for gvk in definitions[def_name].get("x-kubernetes-group-version-kind", []):
            api_version = gvk["version"] if not gvk["group"] else \
                "%s/%s" % (gvk["group"], gvk["version"])
            key = "%s %s" % (api_version, gvk["kind"])
            if key in kinds and kinds[key] != message:
                fail("%s maps to both %s and %s" % (key, kinds[key], message))
            kinds[key] = message

    cross_check(out_messages, definitions)
    if missing_go:
        sys.stderr.write("extract_proto_facts: no Go struct data for %d messages (defaults "
                         "used): %s\n" % (len(missing_go), ", ".join(missing_go[:20])))
    return {"kubernetes_version": "v1.32", "kinds": kinds, "messages": out_messages}


def cross_check(messages, definitions):
    """Every JSON name of a message that has an OpenAPI definition must be a property there."""
    problems = []
    for full, msg in messages.items():
        def_name = "io.k8s." + full[len("k8s.io."):]
        props = definitions.get(def_name, {}).get("properties")
        if props is None:
            continue
        for f in msg["fields"]:
            if f.get("inline") or f.get("json") == "-":
                continue
            json_name = f.get("json", f["name"])
            if json_name not in props:
                problems.append("%s.%s" % (full, json_name))
    if problems:
        fail("JSON names not in the OpenAPI definitions: %s" % ", ".join(sorted(problems)))


def write(doc, path):
    # One message per line: small diffs, about half the size of indented output.
    with open(path, "w") as f:
        f.write('{"kubernetes_version": %s,\n' % json.dumps(doc["kubernetes_version"]))
        f.write('"kinds": {\n')
        items = sorted(doc["kinds"].items())
        for k, (key, value) in enumerate(items):
            f.write("%s: %s%s\n" % (json.dumps(key), json.dumps(value),
                                    "," if k + 1 < len(items) else ""))
        f.write('},\n"messages": {\n')
        items = sorted(doc["messages"].items())
        for k, (key, value) in enumerate(items):
            f.write("%s: %s%s\n" % (json.dumps(key), json.dumps(value, sort_keys=True,
                                                              separators=(",", ":")),
                                    "," if k + 1 < len(items) else ""))
        f.write("}}\n")


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    write(build(argv[1], argv[2]), argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
