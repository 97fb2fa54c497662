/* escape.c - visible escapes for untrusted text (see escape.h for the
 * definition of a control and the escape forms).
 *
 * The input is walked one UTF-8 sequence at a time (decode_one): a valid
 * sequence yields its code point, anything else (a stray continuation
 * byte, a truncated or overlong sequence, a surrogate, > U+10FFFF) yields
 * one invalid byte that is shown as \xNN. Every context-specific function
 * is the same walk with a different treatment of a few characters, so the
 * definition of "control" lives in one place (is_control).
 */
#include "escape.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One character of s[0..n): its length in bytes (>= 1) and code point;
 * *bad when s[0] starts no valid sequence (then the length is 1). */
static size_t decode_one(const unsigned char *s, size_t n, uint32_t *cp, bool *bad)
{
    unsigned char c = s[0];
    *bad = false;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        goto invalid;
    }
    if (len > n)
        goto invalid;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            goto invalid;
        v = (v << 6) | (s[k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        goto invalid;
    *cp = v;
    return len;
invalid:
    *cp = c;
    *bad = true;
    return 1;
}

static bool is_control(uint32_t cp, bool bad)
{
    return bad || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* The visible escape of one control. */
static void put_escape(tl_buf *b, uint32_t cp, bool bad)
{
    if (bad || cp < 0x80) {
        switch (cp) {
        case '\n': tl_buf_puts(b, "\\n"); return;
        case '\r': tl_buf_puts(b, "\\r"); return;
        case '\t': tl_buf_puts(b, "\\t"); return;
        case 0x1B: tl_buf_puts(b, "\\e"); return;
        default: tl_buf_printf(b, "\\x%02X", (unsigned)cp); return;
        }
    }
    tl_buf_printf(b, "\\u%04X", (unsigned)cp);
}

/* The walk: every character of s[0..n) either passes through `keep`
 * (which returns true when it wrote the character itself) or, being a
 * control, is escaped; ordinary characters are copied. */
typedef bool (*keep_fn)(tl_buf *b, uint32_t cp, void *arg);

static void walk(tl_buf *b, const char *s, size_t n, keep_fn keep, void *arg)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (!keep && p[i] >= 0x20 && p[i] < 0x7F) {
            /* a run of printable ASCII is never a control: one append */
            size_t j = i + 1;
            while (j < n && p[j] >= 0x20 && p[j] < 0x7F)
                j++;
            tl_buf_append(b, s + i, j - i);
            i = j;
            continue;
        }
        uint32_t cp;
        bool bad;
        size_t len = decode_one(p + i, n - i, &cp, &bad);
        if (!bad && keep && keep(b, cp, arg)) {
            /* written by keep */
        } else if (is_control(cp, bad)) {
            put_escape(b, cp, bad);
        } else {
            tl_buf_append(b, s + i, len);
        }
        i += len;
    }
}

void tl_escape_line_n(tl_buf *b, const char *s, size_t n)
{
    walk(b, s, n, NULL, NULL);
}

void tl_escape_line(tl_buf *b, const char *s)
{
    if (s)
        walk(b, s, strlen(s), NULL, NULL);
}

char *tl_escape_line_dup(const char *s)
{
    tl_buf b = {0};
    tl_escape_line(&b, s ? s : "");
    return tl_buf_steal(&b);
}

bool tl_escape_has_control(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        bool bad;
        i += decode_one(p + i, n - i, &cp, &bad);
        if (is_control(cp, bad))
            return true;
    }
    return false;
}

/* ----------------------------------------------------------- multi-line */

static bool keep_newline(tl_buf *b, uint32_t cp, void *arg)
{
    if (cp != '\n')
        return false;
    tl_buf_putc(b, '\n');
    tl_buf_puts(b, (const char *)arg);
    return true;
}

void tl_escape_lines(tl_buf *b, const char *s, const char *indent)
{
    if (!s)
        return;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    walk(b, s, n, keep_newline, (void *)(indent ? indent : "  "));
}

/* ------------------------------------------------------------------ XML */

static bool keep_xml(tl_buf *b, uint32_t cp, void *arg)
{
    bool attr = *(bool *)arg;
    switch (cp) {
    case '&': tl_buf_puts(b, "&amp;"); return true;
    case '<': tl_buf_puts(b, "&lt;"); return true;
    case '>': tl_buf_puts(b, "&gt;"); return true;
    case '"': tl_buf_puts(b, "&quot;"); return true;
    case '\'': tl_buf_puts(b, "&apos;"); return true;
    case '\n': tl_buf_puts(b, attr ? "&#10;" : "\n"); return true;
    case '\t': tl_buf_puts(b, "&#9;"); return true;
    default: return false;
    }
}

void tl_escape_xml(tl_buf *b, const char *s, bool attr)
{
    if (s)
        walk(b, s, strlen(s), keep_xml, &attr);
}

/* ----------------------------------------------------------------- HTML */

static bool keep_html(tl_buf *b, uint32_t cp, void *arg)
{
    bool multiline = *(bool *)arg;
    switch (cp) {
    case '&': tl_buf_puts(b, "&amp;"); return true;
    case '<': tl_buf_puts(b, "&lt;"); return true;
    case '>': tl_buf_puts(b, "&gt;"); return true;
    case '"': tl_buf_puts(b, "&quot;"); return true;
    case '\'': tl_buf_puts(b, "&#39;"); return true;
    case '\n':
        if (!multiline)
            return false;
        tl_buf_putc(b, '\n');
        return true;
    case '\t':
        if (!multiline)
            return false;
        tl_buf_puts(b, "&#9;");
        return true;
    default: return false;
    }
}

void tl_escape_html(tl_buf *b, const char *s, bool multiline)
{
    if (s)
        walk(b, s, strlen(s), keep_html, &multiline);
}

/* --------------------------------------------------------------- GitHub */

static bool keep_gh(tl_buf *b, uint32_t cp, void *arg)
{
    bool prop = *(bool *)arg;
    switch (cp) {
    case '%': tl_buf_puts(b, "%25"); return true;
    case '\r': tl_buf_puts(b, "%0D"); return true;
    case '\n': tl_buf_puts(b, "%0A"); return true;
    case ':':
        if (!prop)
            return false;
        tl_buf_puts(b, "%3A");
        return true;
    case ',':
        if (!prop)
            return false;
        tl_buf_puts(b, "%2C");
        return true;
    default: return false;
    }
}

void tl_escape_gh_data(tl_buf *b, const char *s)
{
    bool prop = false;
    if (s)
        walk(b, s, strlen(s), keep_gh, &prop);
}

void tl_escape_gh_prop(tl_buf *b, const char *s)
{
    bool prop = true;
    if (s)
        walk(b, s, strlen(s), keep_gh, &prop);
}

bool tl_escape_risky_start(const char *s)
{
    if (!s)
        return false;
    if (s[0] == ':' && s[1] == ':')
        return true;
    /* NAME:DIGITS: with NAME free of spaces and colons */
    const char *p = s;
    while (*p && *p != ':' && *p != ' ' && *p != '\t')
        p++;
    if (p == s || *p != ':' || !(p[1] >= '0' && p[1] <= '9'))
        return false;
    for (p++; *p >= '0' && *p <= '9'; p++)
        ;
    return *p == ':';
}

/* ------------------------------------------------------------------ CSV */

static void csv_field(tl_buf *b, const char *s, bool head)
{
    tl_buf t = {0};
    if (s && (*s == '=' || *s == '+' || *s == '-' || *s == '@'))
        tl_buf_putc(&t, '\'');
    tl_escape_line(&t, s ? s : "");
    const char *f = tl_buf_str(&t);
    size_t n = strlen(f);
    bool quote = strpbrk(f, ",\"") != NULL || (n && (f[0] == ' ' || f[n - 1] == ' ')) ||
                 (head && tl_escape_risky_start(f));
    if (!quote) {
        tl_buf_puts(b, f);
    } else {
        tl_buf_putc(b, '"');
        for (const char *p = f; *p; p++) {
            if (*p == '"')
                tl_buf_putc(b, '"');
            tl_buf_putc(b, *p);
        }
        tl_buf_putc(b, '"');
    }
    tl_buf_free(&t);
}

void tl_escape_csv(tl_buf *b, const char *s) { csv_field(b, s, false); }
void tl_escape_csv_head(tl_buf *b, const char *s) { csv_field(b, s, true); }

/* ----------------------------------------------------------------- JSON */

char *tl_escape_json_controls(char *s)
{
    if (!s)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    bool any = false;
    for (size_t i = 0; i < n && !any;) {
        uint32_t cp;
        bool bad;
        i += decode_one(p + i, n - i, &cp, &bad);
        any = !bad && cp >= 0x7F && is_control(cp, false);
    }
    if (!any)
        return s;
    tl_buf b = {0};
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        bool bad;
        size_t len = decode_one(p + i, n - i, &cp, &bad);
        if (!bad && cp >= 0x7F && is_control(cp, false))
            tl_buf_printf(&b, "\\u%04x", (unsigned)cp);
        else
            tl_buf_append(&b, s + i, len);
        i += len;
    }
    /* the output is built with malloc like cJSON's (cJSON_free is free) */
    free(s);
    return tl_buf_steal(&b);
}

bool tl_escape_shell(tl_buf *b, const char *s)
{
    if (!s || !*s)
        return false;
    bool plain = true;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f)
            return false;
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || strchr("_./:=+,@%-", *p)))
            plain = false;
    }
    if (plain) {
        tl_buf_puts(b, s);
        return true;
    }
    tl_buf_putc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            tl_buf_puts(b, "'\\''");
        else
            tl_buf_putc(b, *p);
    }
    tl_buf_putc(b, '\'');
    return true;
}
