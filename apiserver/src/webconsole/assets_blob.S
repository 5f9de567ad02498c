/* Embeds the web console's bundle as read-only data. The build passes the four files' paths as
   the macros KS_WEB_INDEX_HTML, KS_WEB_APP_JS, KS_WEB_APP_CSS and KS_WEB_FAVICON_SVG (quoted
   strings); assets.cpp turns the begin/end symbols into string_views.
   %object / %progbits rather than @...: '@' starts a comment on some architectures. */

  .section .rodata.ks_web_console, "a"

#define KS_WEB_BLOB(name, file) \
  .balign 16; \
  .globl name##_begin; \
  .hidden name##_begin; \
  .type name##_begin, %object; \
name##_begin: \
  .incbin file; \
  .globl name##_end; \
  .hidden name##_end; \
name##_end: \
  .byte 0

KS_WEB_BLOB(ks_web_index_html, KS_WEB_INDEX_HTML)
KS_WEB_BLOB(ks_web_app_js, KS_WEB_APP_JS)
KS_WEB_BLOB(ks_web_app_css, KS_WEB_APP_CSS)
KS_WEB_BLOB(ks_web_favicon_svg, KS_WEB_FAVICON_SVG)

  .section .note.GNU-stack, "", %progbits
