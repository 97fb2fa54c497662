/* exec.c - `tlab exec FILE.py`: the op language as a script runner.
 *
 * The script runs in one interpreter, as one lab setup would (same limits:
 * --timeout for the whole script, --max-bytes, source size, nesting), with
 * print() writing to standard output. The script is parsed first, so a
 * syntax or unsupported-construct error prints before any output, as
 * CPython's compiler does. An uncaught Python exception prints a short
 * traceback (the statement's line) and the located diagnostic on stderr.
 * Invariant: standard output gets only what the script printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "builtins.h"
#include "diag.h"
#include "exec.h"
#include "interp.h"
#include "pywarn.h"
#include "storage.h"
#include "util.h"

#define EXEC_MAX_SOURCE ((size_t)1 << 20)

/* the whole of standard input, at most max bytes (+1 to detect more) */
static char *read_stdin(size_t max, size_t *len, bool *too_long)
{
    tl_buf b = {0};
    char chunk[65536];
    size_t n;
    *too_long = false;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        tl_buf_append(&b, chunk, n);
        if (b.len > max) {
            *too_long = true;
            break;
        }
    }
    *len = b.len;
    tl_buf_puts(&b, "");
    return tl_buf_steal(&b);
}

static bool want_color(tl_color c)
{
    if (c == TL_COLOR_ALWAYS)
        return true;
    if (c == TL_COLOR_NEVER)
        return false;
    const char *nc = getenv("NO_COLOR");
    return !(nc && *nc) && isatty(STDERR_FILENO) == 1;
}

/* The script's name as Python shows it in tracebacks and warnings: the
 * path made absolute (os.path.abspath, as Python 3.9+ does for the main
 * script; "./" prefixes dropped), "<stdin>" for standard input. */
static char *python_name(const char *path, bool from_stdin)
{
    if (from_stdin || path[0] == '/')
        return tl_xstrdup(from_stdin ? "<stdin>" : path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return tl_xstrdup(path);
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    char *r = tl_xmalloc(strlen(cwd) + strlen(path) + 2);
    sprintf(r, "%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", path);
    return r;
}

int tl_exec_run(const tl_cli *cli)
{
    const char *path = cli->args[0];
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "<stdin>" : path;
    char *text = NULL;
    size_t len = 0;
    if (from_stdin) {
        bool too_long;
        text = read_stdin(EXEC_MAX_SOURCE, &len, &too_long);
        if (too_long) {
            fprintf(stderr, "tlab: %s: source longer than the limit (%zu bytes)\n", name,
                    EXEC_MAX_SOURCE);
            free(text);
            return TL_EXIT_USAGE;
        }
    } else {
        struct stat st;
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            fprintf(stderr, "tlab: %s: not a regular file\n", path);
            return TL_EXIT_USAGE;
        }
        tl_read_status rs = tl_read_file(path, EXEC_MAX_SOURCE, &text, &len);
        if (rs != TL_READ_OK) {
            fprintf(stderr, "tlab: %s: %s\n", path,
                    rs == TL_READ_TOO_BIG ? "source longer than the limit (1 MiB)"
                                          : "cannot read the file");
            free(text);
            return TL_EXIT_USAGE;
        }
    }
    bool color = want_color(cli->color);

    /* device, as lab setups choose it */
    const tl_backend *real = tl_backend_cuda(), *cpu = tl_backend_cpu();
    if (cli->require_gpu && !real) {
        const char *why;
        (void)tl_backend_cuda_probe(&why);
        fprintf(stderr, "tlab: --require-gpu: no GPU is available (CUDA: %s)\n", why);
        free(text);
        return TL_EXIT_USAGE;
    }
    const tl_backend *be = cli->require_gpu                  ? real
                           : cli->device == TL_DEVREQ_CPU  ? cpu
                           : cli->device == TL_DEVREQ_CUDA ? (real ? real : tl_backend_cuda_emulated())
                                                           : (real ? real : cpu);
    tl_interp_opts o;
    tl_interp_opts_default(&o);
    o.default_backend = be;
    o.cuda_backend = real ? real : tl_backend_device(be).kind == TL_DEV_CUDA ? be : NULL;
    o.cuda_available = o.cuda_backend != NULL;
    if (cli->timeout > 0)
        o.timeout = cli->timeout;
    tl_alloc_set_limit(cli->max_bytes ? cli->max_bytes : TL_DEFAULT_MAX_BYTES);

    tl_source src = {text, len, name, 1, 1, 1, text, len};
    tl_error err;
    tl_error_clear(&err);
    int rc = TL_EXIT_OK;
    if (tl_interp_check_syntax(&src, &o, &err) < 0) {
        tl_buf d = {0};
        tl_diag_render(&d, &src, &err, color);
        fputs(tl_buf_str(&d), stderr);
        tl_buf_free(&d);
        free(text);
        return TL_EXIT_USAGE;
    }
    tl_interp *I = tl_interp_new(&o);
    fflush(stdout);
    tl_builtins_set_stdout(stdout);
    char *pyname = python_name(path, from_stdin);
    tl_pywarn_set(stderr, pyname, text, len);
    int erc = tl_interp_exec(I, &src, &err);
    bool closed = tl_builtins_stdout_closed();
    tl_pywarn_set(NULL, NULL, NULL, 0);
    tl_builtins_set_stdout(NULL);
    if (fflush(stdout) != 0 && errno == EPIPE)
        closed = true;
    clearerr(stdout);
    if (erc < 0 && closed) {
        /* the reader of standard output took what it wanted (`| head`) */
    } else if (erc < 0) {
        tl_buf d = {0};
        if (tl_error_is_python(err.kind)) {
            int line = 0, col = 0;
            if (err.span.start >= 0)
                tl_diag_position(&src, err.span.start, &line, &col);
            tl_buf_puts(&d, "Traceback (most recent call last):\n");
            if (line)
                tl_buf_printf(&d, "  File \"%s\", line %d, in <module>\n", pyname, line);
            rc = TL_EXIT_FAIL;
        } else {
            rc = err.kind == TL_ERR_INTERNAL ? TL_EXIT_INTERNAL : TL_EXIT_USAGE;
        }
        tl_diag_render(&d, &src, &err, color);
        fputs(tl_buf_str(&d), stderr);
        tl_buf_free(&d);
    }
    tl_interp_free(I);
    free(text);
    free(pyname);
    return rc;
}
