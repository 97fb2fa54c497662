/* err.h - errors as values.
 *
 * Every fallible function takes a `tl_error *err` and either returns
 * -1 / NULL after filling it, or succeeds and leaves it untouched.
 * Two families live in one enum:
 *   - Python exceptions (RuntimeError, IndexError, ...): what PyTorch or
 *     Python would raise. In a lab op these become the `error` verdict.
 *   - tlab errors (syntax, unsupported, limit, internal): a problem with the
 *     sheet or with tlab itself; they map to exit 2 or 3 in main.
 * The span is a byte range in the tl_source being executed, or -1/-1.
 */
#ifndef TL_ERR_H
#define TL_ERR_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_errkind {
    TL_OK = 0,
    /* Python exceptions: a lab op raising one of these gets verdict `error` */
    TL_ERR_RUNTIME,     /* RuntimeError */
    TL_ERR_INDEX,       /* IndexError */
    TL_ERR_VALUE,       /* ValueError */
    TL_ERR_TYPE,        /* TypeError */
    TL_ERR_ASSERTION,   /* AssertionError */
    TL_ERR_ZERODIV,     /* ZeroDivisionError */
    TL_ERR_OVERFLOW,    /* OverflowError */
    TL_ERR_EINOPS,      /* einops.EinopsError (a RuntimeError) */
    TL_ERR_IMPORT,      /* ImportError (from einops import NAME) */
    TL_ERR_NOTIMPL,     /* NotImplementedError */
    TL_ERR_KEY,         /* KeyError */
    TL_ERR_NAME,        /* NameError (undefined variable) */
    TL_ERR_ATTRIBUTE,   /* AttributeError (e.g. attribute of an int) */
    TL_ERR_FILENOTFOUND, /* FileNotFoundError (the run's in-memory files) */
    TL_ERR_OS,          /* OSError (io.UnsupportedOperation, IsADirectoryError ...) */
    TL_ERR_UNPICKLING,  /* pickle.UnpicklingError (torch.load weights_only) */
    TL_ERR_IOUNSUPPORTED, /* io.UnsupportedOperation (an OSError and a ValueError) */
    TL_ERR_UFUNCTYPE,   /* numpy's UFuncTypeError (a TypeError): a ufunc's casting */
    TL_ERR_EXCEPTION,   /* Exception (raised by the program itself) */
    /* tlab errors: not a Python behaviour; the sheet or tlab is at fault */
    TL_ERR_SYNTAX,      /* cannot parse */
    TL_ERR_UNSUPPORTED, /* valid Python, but outside tlab's subset */
    TL_ERR_LIMIT,       /* a safety limit (SPEC 7) was exceeded */
    TL_ERR_INTERNAL     /* a bug or device failure: exit 3 */
} tl_errkind;

typedef struct tl_span {
    int32_t start; /* byte offset of the first byte, -1 if unknown */
    int32_t end;   /* one past the last byte */
} tl_span;

#define TL_NO_SPAN ((tl_span){-1, -1})

#define TL_ERRMSG_MAX 1024

typedef struct tl_error {
    tl_errkind kind;
    tl_span span;
    char msg[TL_ERRMSG_MAX]; /* message without the "RuntimeError: " prefix */
} tl_error;

/* Fill err (kind, message) with no span. Returns -1 so callers can
 * `return tl_error_set(err, ...)`. err may be NULL (error discarded). */
int tl_error_set(tl_error *err, tl_errkind kind, const char *fmt, ...)
    TL_PRINTF(3, 4);
/* tl_error_set with a message built by the caller (the text's first
 * TL_ERRMSG_MAX - 1 bytes; no format is read, so it may hold '%'). */
int tl_error_set_text(tl_error *err, tl_errkind kind, const char *text);
/* Attach a span if the error has none yet. */
void tl_error_locate(tl_error *err, tl_span span);
void tl_error_clear(tl_error *err);

/* "RuntimeError", "IndexError", ..., "SyntaxError", "UnsupportedError",
 * "LimitError", "InternalError". */
const char *tl_error_kind_name(tl_errkind kind);
/* true for the Python-exception family */
bool tl_error_is_python(tl_errkind kind);

#ifdef __cplusplus
}
#endif

#endif
