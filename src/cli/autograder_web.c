/* autograder_web.c - `tlab autograder web --lab MASTER.yaml -o DIR`: the
 * static lab page for students (issue 25), ready for any static host or for
 * opening from file://.
 *
 * DIR gets the page's files (share/web: index.html, page.js, wasi.js,
 * page.css, README), tlab.wasm, the BLANKED lab as lab.yaml (the same text
 * as `tlab new` and the other bundles' sheets: tl_lab_blank_text) and two
 * script files for file://, where browsers refuse fetch(): lab.js sets
 * TLAB_EMBED_LAB to lab.yaml's text (a JSON string) and wasm.js sets
 * TLAB_EMBED_WASM_DEFLATE_RAW to tlab.wasm deflated (raw RFC 1951,
 * tl_deflate_encode) in base64: about 0.8 MB where the plain base64 was
 * 1.9 MB, unpacked by the page with DecompressionStream('deflate-raw'). The
 * page fetches lab.yaml and tlab.wasm when it can and loads the .js copies
 * only when it cannot, so an http host serves the wasm once.
 *
 * Where the inputs are found (first that exists):
 *   page files: $TLAB_WEB_DIR, <dir of the tlab binary>/share/web (a build
 *               tree), TL_PKGDATADIR/web (installed);
 *   tlab.wasm:  $TLAB_WASM, <dir of the tlab binary>/tlab.wasm (where
 *               `make wasm` leaves it), TL_PKGDATADIR/tlab.wasm.
 * A missing one is exit 2 with a message naming where it looked.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "autograder.h"
#include "deflate.h"
#include "lab.h"
#include "output.h"
#include "platform.h"
#include "util.h"

#ifndef TL_PKGDATADIR
#define TL_PKGDATADIR "/usr/local/share/tlab"
#endif

#define WASM_MAX ((size_t)64 << 20)
#define PAGE_MAX ((size_t)4 << 20)

/* The page's own files, copied from the web directory as they are. */
static const char *const page_files[] = {"index.html", "page.js", "wasi.js", "page.css",
                                         "README"};

static int fail(const char *fmt, const char *a, const char *b)
{
    fputs("tlab: ", stderr);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return TL_EXIT_USAGE;
}

/* The directory of the running binary in buf, or "" when unknown. */
static void exe_dir(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
    else
        buf[0] = '\0';
}

/* The first of env, <exe>/rel, TL_PKGDATADIR/prel that is readable (and a
 * directory when dir), malloc'ed; NULL with a message when none is. */
static char *find_input(const char *env, const char *rel, const char *prel, bool dir,
                        const char *what, const char *how)
{
    const char *e = getenv(env);
    if (e && *e) {
        struct stat st;
        if (stat(e, &st) == 0 && (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
            return tl_xstrdup(e);
        fprintf(stderr, "tlab: $%s=%s: no such %s\n", env, e, dir ? "directory" : "file");
        return NULL;
    }
    char exe[PATH_MAX];
    exe_dir(exe, sizeof exe);
    char *cand[2];
    size_t n = 0;
    if (exe[0]) {
        cand[n] = tl_xmalloc(strlen(exe) + strlen(rel) + 2);
        sprintf(cand[n++], "%s/%s", exe, rel);
    }
    cand[n] = tl_xmalloc(strlen(TL_PKGDATADIR) + strlen(prel) + 2);
    sprintf(cand[n++], "%s/%s", TL_PKGDATADIR, prel);
    char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!found && stat(cand[i], &st) == 0 &&
            (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) && access(cand[i], R_OK) == 0)
            found = tl_xstrdup(cand[i]);
    }
    if (!found)
        fprintf(stderr, "tlab: autograder web: no %s (looked in %s%s%s): %s, or set %s\n", what,
                n > 1 ? cand[0] : cand[n - 1], n > 1 ? " and " : "", n > 1 ? cand[1] : "", how,
                env);
    for (size_t i = 0; i < n; i++)
        free(cand[i]);
    return found;
}

static int slurp(const char *path, size_t max, char **text, size_t *len)
{
    char eb[128];
    switch (tl_read_file(path, max, text, len)) {
    case TL_READ_OK: return 0;
    case TL_READ_TOO_BIG: return fail("%s: too big%s", path, "");
    default: return fail("%s: %s", path, tl_strerror(errno, eb, sizeof eb));
    }
}

static int put(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = tl_xmalloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    char eb[256];
    int rc = 0;
    if (tl_output_write(path, data, len, eb, sizeof eb) != 0)
        rc = fail("%s%s", eb, "");
#if TL_HAVE_FILE_MODES
    else if (chmod(path, 0644) != 0)
        rc = fail("cannot chmod %s%s", path, "");
#endif
    free(path);
    return rc;
}

/* `prefix "JSON string";\n`: the text as a JavaScript string literal; '<',
 * '>', '&' and U+2028/9 escaped so the file is safe however it is loaded. */
static void js_string(tl_buf *b, const char *prefix, const char *s, size_t n)
{
    tl_buf_puts(b, prefix);
    tl_buf_puts(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            tl_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            tl_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
            tl_buf_printf(b, "\\u%04x", c);
        else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            tl_buf_printf(b, "\\u%04x", 0x2000 | ((unsigned char)s[i + 2] - 0x80));
            i += 2;
        } else
            tl_buf_printf(b, "%c", c);
    }
    tl_buf_puts(b, "\";\n");
}

static void base64(tl_buf *b, const unsigned char *p, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[5] = {0};
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        q[0] = al[v >> 18 & 63], q[1] = al[v >> 12 & 63];
        q[2] = i + 1 < n ? al[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? al[v & 63] : '=';
        tl_buf_puts(b, q);
    }
}

int tl_autograder_web(const tl_cli *cli, const struct tl_lab *lab)
{
    char *web = find_input("TLAB_WEB_DIR", "share/web", "web", true, "lab page (share/web)",
                           "install tlab (make install)");
    if (!web)
        return TL_EXIT_USAGE;
    char *wasm_path = find_input("TLAB_WASM", "tlab.wasm", "tlab.wasm", false, "tlab.wasm",
                                 "run 'make wasm' in tlab's build directory");
    if (!wasm_path) {
        free(web);
        return TL_EXIT_USAGE;
    }
    char *wasm = NULL;
    size_t wlen = 0;
    int rc = slurp(wasm_path, WASM_MAX, &wasm, &wlen);
    if (rc == 0 && (wlen < 8 || memcmp(wasm, "\0asm", 4) != 0))
        rc = fail("%s: not a WebAssembly module (no \\0asm header)%s", wasm_path, "");
    if (rc == 0 && mkdir(cli->output, 0777) != 0 && errno != EEXIST) {
        char eb[128];
        rc = fail("cannot create directory %s: %s", cli->output, tl_strerror(errno, eb, sizeof eb));
    }
    for (size_t i = 0; rc == 0 && i < sizeof page_files / sizeof *page_files; i++) {
        char *src = tl_xmalloc(strlen(web) + strlen(page_files[i]) + 2), *text;
        size_t len;
        sprintf(src, "%s/%s", web, page_files[i]);
        rc = slurp(src, PAGE_MAX, &text, &len);
        if (rc == 0) {
            rc = put(cli->output, page_files[i], text, len);
            free(text);
        }
        free(src);
    }
    char *blank = rc == 0 ? tl_lab_blank_text(lab) : NULL;
    if (rc == 0)
        rc = put(cli->output, "lab.yaml", blank, strlen(blank));
    if (rc == 0) {
        tl_buf b = {0};
        js_string(&b, "var TLAB_EMBED_LAB = ", blank, strlen(blank));
        rc = put(cli->output, "lab.js", b.data, b.len);
        tl_buf_free(&b);
    }
    if (rc == 0)
        rc = put(cli->output, "tlab.wasm", wasm, wlen);
    if (rc == 0) {
        tl_buf z = {0}, b = {0};
        tl_deflate_encode(&z, (const unsigned char *)wasm, wlen);
        tl_buf_puts(&b, "var TLAB_EMBED_WASM_DEFLATE_RAW = \"");
        base64(&b, (const unsigned char *)z.data, z.len);
        tl_buf_puts(&b, "\";\n");
        rc = put(cli->output, "wasm.js", b.data, b.len);
        tl_buf_free(&z);
        tl_buf_free(&b);
    }
    if (rc == 0)
        fprintf(stderr,
                "tlab: wrote the lab page for %s to %s (index.html, tlab.wasm, the blank "
                "lab.yaml): copy the folder to any static host, or open %s/index.html\n",
                lab->id ? lab->id : "the lab", cli->output, cli->output);
    free(blank), free(wasm), free(wasm_path), free(web);
    return rc;
}
