/* err.c - errors as values: kinds, names, formatting.
 *
 * Invariant: a tl_error whose kind is TL_OK carries no message. Setting an
 * error always overwrites the previous one (the newest cause wins), but a
 * span, once attached, is kept (the innermost location is the useful one).
 */
#include "err.h"

#include <stdio.h>
#include <string.h>

int tl_error_set(tl_error *err, tl_errkind kind, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    err->kind = kind;
    err->span = TL_NO_SPAN;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int tl_error_set_text(tl_error *err, tl_errkind kind, const char *text)
{
    if (!err)
        return -1;
    err->kind = kind;
    err->span = TL_NO_SPAN;
    size_t n = strlen(text);
    if (n >= sizeof err->msg)
        n = sizeof err->msg - 1;
    memcpy(err->msg, text, n);
    err->msg[n] = '\0';
    return -1;
}

void tl_error_locate(tl_error *err, tl_span span)
{
    if (err && err->kind != TL_OK && err->span.start < 0)
        err->span = span;
}

void tl_error_clear(tl_error *err)
{
    if (!err)
        return;
    err->kind = TL_OK;
    err->span = TL_NO_SPAN;
    err->msg[0] = '\0';
}

const char *tl_error_kind_name(tl_errkind kind)
{
    switch (kind) {
    case TL_OK: return "OK";
    case TL_ERR_RUNTIME: return "RuntimeError";
    case TL_ERR_INDEX: return "IndexError";
    case TL_ERR_VALUE: return "ValueError";
    case TL_ERR_TYPE: return "TypeError";
    case TL_ERR_ASSERTION: return "AssertionError";
    case TL_ERR_ZERODIV: return "ZeroDivisionError";
    case TL_ERR_OVERFLOW: return "OverflowError";
    case TL_ERR_EINOPS: return "EinopsError";
    case TL_ERR_IMPORT: return "ImportError";
    case TL_ERR_NOTIMPL: return "NotImplementedError";
    case TL_ERR_KEY: return "KeyError";
    case TL_ERR_NAME: return "NameError";
    case TL_ERR_ATTRIBUTE: return "AttributeError";
    case TL_ERR_FILENOTFOUND: return "FileNotFoundError";
    case TL_ERR_OS: return "OSError";
    case TL_ERR_UNPICKLING: return "UnpicklingError";
    case TL_ERR_IOUNSUPPORTED: return "UnsupportedOperation";
    case TL_ERR_UFUNCTYPE: return "UFuncTypeError";
    case TL_ERR_EXCEPTION: return "Exception";
    case TL_ERR_SYNTAX: return "SyntaxError";
    case TL_ERR_UNSUPPORTED: return "UnsupportedError";
    case TL_ERR_LIMIT: return "LimitError";
    case TL_ERR_INTERNAL: return "InternalError";
    }
    return "Error";
}

bool tl_error_is_python(tl_errkind kind)
{
    return kind >= TL_ERR_RUNTIME && kind <= TL_ERR_EXCEPTION;
}
