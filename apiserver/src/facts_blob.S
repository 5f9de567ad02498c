/* Embeds the committed facts documents as read-only data. The build passes the file paths as
   the macros KS_FACTS_RESOURCES_JSON, KS_FACTS_SCHEMAS_JSON, KS_FACTS_PROTO_JSON and KS_FACTS_BOOTSTRAP_POLICY_JSON (quoted
   strings); facts.cpp turns the begin/end symbols into string_views. A NUL follows each blob
   for debuggers only.
   %object / %progbits rather than @...: '@' starts a comment on some architectures. */

  .section .rodata.ks_facts, "a"

  .balign 16
  .globl ks_facts_resources_json_begin
  .hidden ks_facts_resources_json_begin
  .type ks_facts_resources_json_begin, %object
ks_facts_resources_json_begin:
  .incbin KS_FACTS_RESOURCES_JSON
  .globl ks_facts_resources_json_end
  .hidden ks_facts_resources_json_end
ks_facts_resources_json_end:
  .byte 0

  .balign 16
  .globl ks_facts_schemas_json_begin
  .hidden ks_facts_schemas_json_begin
  .type ks_facts_schemas_json_begin, %object
ks_facts_schemas_json_begin:
  .incbin KS_FACTS_SCHEMAS_JSON
  .globl ks_facts_schemas_json_end
  .hidden ks_facts_schemas_json_end
ks_facts_schemas_json_end:
  .byte 0

  .balign 16
  .globl ks_facts_proto_json_begin
  .hidden ks_facts_proto_json_begin
  .type ks_facts_proto_json_begin, %object
ks_facts_proto_json_begin:
  .incbin KS_FACTS_PROTO_JSON
  .globl ks_facts_proto_json_end
  .hidden ks_facts_proto_json_end
ks_facts_proto_json_end:
  .byte 0

  .balign 16
  .globl ks_facts_bootstrap_policy_json_begin
  .hidden ks_facts_bootstrap_policy_json_begin
  .type ks_facts_bootstrap_policy_json_begin, %object
ks_facts_bootstrap_policy_json_begin:
  .incbin KS_FACTS_BOOTSTRAP_POLICY_JSON
  .globl ks_facts_bootstrap_policy_json_end
  .hidden ks_facts_bootstrap_policy_json_end
ks_facts_bootstrap_policy_json_end:
  .byte 0

/* No executable stack for the objects that link this. */
  .section .note.GNU-stack, "", %progbits
