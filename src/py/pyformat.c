/* pyformat.c - the format-spec mini-language (Python's format()).
 *
 * A spec is parsed once into a struct; the value is then rendered to its
 * digits (sign kept apart) by type, grouping separators go into the
 * integer part, and fill/alignment pad to the width ('=' puts padding
 * between sign and digits, as '0' does). Floats go through printf with
 * Python's rules on top: nan/inf unsigned words (upper case for E F G),
 * no-type-with-precision keeps one digit after the point, no type and no
 * precision is repr(). Widths and precisions are bounded by max_len before
 * anything is allocated.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyformat.h"

typedef struct spec {
    char fill, align, sign, type;
    bool alt, zero, has_width, has_prec;
    char group;
    int64_t width, prec;
} spec;

static int parse_spec(const char *s, size_t n, size_t max_len, spec *sp, tl_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->fill = ' ';
    size_t i = 0;
    if (n >= 2 && strchr("<>=^", s[1]) && s[1]) {
        sp->fill = s[0];
        sp->align = s[1];
        i = 2;
    } else if (n >= 1 && strchr("<>=^", s[0]) && s[0]) {
        sp->align = s[0];
        i = 1;
    }
    if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' '))
        sp->sign = s[i++];
    if (i < n && s[i] == 'z')
        i++;
    if (i < n && s[i] == '#') {
        sp->alt = true;
        i++;
    }
    if (i < n && s[i] == '0') {
        sp->zero = true;
        i++;
    }
    while (i < n && isdigit((unsigned char)s[i])) {
        sp->has_width = true;
        sp->width = sp->width * 10 + (s[i++] - '0');
        if ((size_t)sp->width > max_len)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "format width longer than the limit (%zu characters)",
                                max_len);
    }
    if (i < n && (s[i] == ',' || s[i] == '_'))
        sp->group = s[i++];
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !isdigit((unsigned char)s[i]))
            return tl_error_set(err, TL_ERR_VALUE, "Format specifier missing precision");
        while (i < n && isdigit((unsigned char)s[i])) {
            sp->has_prec = true;
            sp->prec = sp->prec * 10 + (s[i++] - '0');
            if (sp->prec > 10000 || (size_t)sp->prec > max_len)
                return tl_error_set(err, TL_ERR_LIMIT,
                                    "format precision too large (tlab limit %d)", 10000);
        }
    }
    if (i < n)
        sp->type = s[i++];
    if (i < n)
        return tl_error_set(err, TL_ERR_VALUE, "Invalid format specifier '%.*s' for object",
                            (int)n, s);
    return 0;
}

/* Insert sep every 3 digits into the leading run of digits of body. */
static void group_digits(tl_buf *body, char sep, int every)
{
    const char *s = tl_buf_str(body);
    size_t nd = 0;
    while (s[nd] && isxdigit((unsigned char)s[nd]) && !(s[nd] == 'e' || s[nd] == 'E'))
        nd++;
    if (nd <= (size_t)every)
        return;
    tl_buf out = {0};
    for (size_t i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % (size_t)every == 0)
            tl_buf_putc(&out, sep);
        tl_buf_putc(&out, s[i]);
    }
    tl_buf_puts(&out, s + nd);
    tl_buf_free(body);
    *body = out;
}

static void pad(tl_buf *out, const spec *sp, const char *sign, const char *body,
                char default_align)
{
    char align = sp->align ? sp->align : sp->zero ? '=' : default_align;
    char fill = sp->align ? sp->fill : sp->zero ? '0' : sp->fill;
    int64_t len = (int64_t)(strlen(sign) + strlen(body));
    int64_t padn = sp->width > len ? sp->width - len : 0;
    int64_t left = 0, right = 0;
    switch (align) {
    case '<': right = padn; break;
    case '^': left = padn / 2; right = padn - left; break;
    default: left = padn; break;
    }
    if (align == '=') {
        tl_buf_puts(out, sign);
        for (int64_t i = 0; i < left; i++)
            tl_buf_putc(out, fill);
        tl_buf_puts(out, body);
        return;
    }
    for (int64_t i = 0; i < left; i++)
        tl_buf_putc(out, fill);
    tl_buf_puts(out, sign);
    tl_buf_puts(out, body);
    for (int64_t i = 0; i < right; i++)
        tl_buf_putc(out, fill);
}

static const char *sign_of(bool neg, char sign)
{
    if (neg)
        return "-";
    return sign == '+' ? "+" : sign == ' ' ? " " : "";
}

/* the shortest round-trip repr of a finite double (as value.c prints it) */
static void shortest(double d, tl_buf *b)
{
    tl_value *v = tl_float(d);
    tl_value_repr(v, b);
    tl_value_release(v);
}

static int format_float(double d, const spec *sp, const char *tname, tl_buf *out,
                        tl_error *err)
{
    char t = sp->type;
    if (t && !strchr("eEfFgGn%", t))
        return tl_error_set(err, TL_ERR_VALUE,
                            "Unknown format code '%c' for object of type '%s'", t, tname);
    bool neg = signbit(d) && !isnan(d);
    double a = fabs(d);
    tl_buf body = {0};
    bool upper = t == 'E' || t == 'F' || t == 'G';
    if (!isfinite(a)) {
        tl_buf_puts(&body, isnan(a) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
        if (t == '%')
            tl_buf_putc(&body, '%');
    } else {
        int p = (int)(sp->has_prec ? sp->prec : 6);
        char *tmp = NULL;
        size_t cap = 400 + (size_t)p;
        tmp = malloc(cap);
        if (!tmp)
            return tl_error_set(err, TL_ERR_LIMIT, "out of memory formatting a float");
        switch (t) {
        case 'e': case 'E':
            snprintf(tmp, cap, sp->alt ? "%#.*e" : "%.*e", p, a);
            break;
        case 'f': case 'F':
            snprintf(tmp, cap, sp->alt ? "%#.*f" : "%.*f", p, a);
            break;
        case '%':
            snprintf(tmp, cap, sp->alt ? "%#.*f%%" : "%.*f%%", p, a * 100.0);
            break;
        case 'g': case 'G': case 'n':
            snprintf(tmp, cap, sp->alt ? "%#.*g" : "%.*g", p == 0 ? 1 : p, a);
            break;
        default:
            if (!sp->has_prec) {
                tl_buf r = {0};
                shortest(a, &r);
                snprintf(tmp, cap, "%s", tl_buf_str(&r));
                tl_buf_free(&r);
            } else {
                snprintf(tmp, cap, "%.*g", p == 0 ? 1 : p, a);
                if (!strpbrk(tmp, ".e"))
                    strcat(tmp, ".0"); /* 1e+10 stays as it is */
            }
            break;
        }
        if (upper)
            for (char *c = tmp; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        tl_buf_puts(&body, tmp);
        free(tmp);
        if (sp->group)
            group_digits(&body, sp->group, 3);
    }
    pad(out, sp, sign_of(neg, sp->sign), tl_buf_str(&body), '>');
    tl_buf_free(&body);
    return 0;
}

static int format_int(int64_t x, const spec *sp, const char *tname, tl_buf *out,
                      tl_error *err)
{
    char t = sp->type;
    if (t && strchr("eEfFgG%", t))
        return format_float((double)x, sp, tname, out, err);
    if (t && !strchr("dnxXobc", t))
        return tl_error_set(err, TL_ERR_VALUE,
                            "Unknown format code '%c' for object of type '%s'", t, tname);
    if (sp->has_prec)
        return tl_error_set(err, TL_ERR_VALUE,
                            "Precision not allowed in integer format specifier");
    uint64_t a = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    char tmp[80];
    const char *prefix = "";
    switch (t) {
    case 'x': snprintf(tmp, sizeof tmp, "%" PRIx64, a); prefix = sp->alt ? "0x" : ""; break;
    case 'X': snprintf(tmp, sizeof tmp, "%" PRIX64, a); prefix = sp->alt ? "0X" : ""; break;
    case 'o': snprintf(tmp, sizeof tmp, "%" PRIo64, a); prefix = sp->alt ? "0o" : ""; break;
    case 'b': {
        int k = 0;
        char rev[70];
        do {
            rev[k++] = (char)('0' + (a & 1));
            a >>= 1;
        } while (a);
        for (int i = 0; i < k; i++)
            tmp[i] = rev[k - 1 - i];
        tmp[k] = 0;
        prefix = sp->alt ? "0b" : "";
        break;
    }
    case 'c':
        if (x < 0 || x > 0x10ffff)
            return tl_error_set(err, TL_ERR_OVERFLOW, "%%c arg not in range(0x110000)");
        tmp[0] = (char)(x < 0x80 ? x : '?');
        tmp[1] = 0;
        break;
    default: snprintf(tmp, sizeof tmp, "%" PRIu64, a); break;
    }
    tl_buf body = {0};
    tl_buf_puts(&body, tmp);
    if (sp->group)
        group_digits(&body, sp->group, t && strchr("xXob", t) ? 4 : 3);
    char sign[8];
    snprintf(sign, sizeof sign, "%s%s", sign_of(x < 0, sp->sign), prefix);
    pad(out, sp, sign, tl_buf_str(&body), '>');
    tl_buf_free(&body);
    return 0;
}

int tl_format_value(const tl_value *v, const char *s, size_t n, size_t max_len, tl_buf *out,
                    tl_error *err)
{
    /* Tensor.__format__: a 0-d tensor formats its .item(), even with an
     * empty spec (f"{x.sum()}" is "15.0"); others are object.__format__ */
    if (n == 0 && !(v->kind == TL_V_TENSOR && v->u.tensor->ndim == 0)) {
        if (v->kind == TL_V_FLOAT) {
            /* a NumPy float32 scalar formats as the Python float it
             * holds (f"{np.float32(1.1)}" is "1.100000023841858"), where
             * its str is the short "1.1" */
            tl_value *f = tl_float(v->u.f);
            tl_value_str(f, out);
            tl_value_release(f);
            return 0;
        }
        tl_value_str(v, out);
        return 0;
    }
    spec sp;
    memset(&sp, 0, sizeof sp);
    if (n && parse_spec(s, n, max_len, &sp, err) < 0)
        return -1;
    switch (v->kind) {
    case TL_V_STR: {
        if (sp.type && sp.type != 's')
            return tl_error_set(err, TL_ERR_VALUE,
                                "Unknown format code '%c' for object of type 'str'", sp.type);
        if (sp.sign)
            return tl_error_set(err, TL_ERR_VALUE, "Sign not allowed in string format specifier");
        if (sp.align == '=')
            return tl_error_set(err, TL_ERR_VALUE,
                                "'=' alignment not allowed in string format specifier");
        size_t len = v->u.str.len;
        if (sp.has_prec && (size_t)sp.prec < len)
            len = (size_t)sp.prec;
        char *body = tl_xstrndup(v->u.str.s, len);
        spec s2 = sp;
        s2.zero = false;
        if (sp.zero && !sp.align) {
            s2.fill = '0';
            s2.align = '<';
        }
        pad(out, &s2, "", body, '<');
        free(body);
        return 0;
    }
    case TL_V_BOOL:
    case TL_V_INT:
        return format_int(v->kind == TL_V_BOOL ? (int64_t)v->u.b : v->u.i, &sp,
                          v->kind == TL_V_BOOL ? "bool" : "int", out, err);
    case TL_V_FLOAT:
        return format_float(v->u.f, &sp, "float", out, err);
    case TL_V_TENSOR: {
        const tl_tensor *t = v->u.tensor;
        if (t->ndim == 0) {
            (void)sp;
            tl_value *item;
            if (tl_dtype_is_floating(t->dtype)) {
                double d;
                if (tl_tensor_get_f64(t, 0, &d, err) < 0)
                    return -1;
                item = tl_float(d);
            } else {
                int64_t x;
                if (tl_tensor_get_i64(t, 0, &x, err) < 0)
                    return -1;
                item = t->dtype == TL_BOOL ? tl_bool(x != 0) : tl_int(x);
            }
            int rc = tl_format_value(item, s, n, max_len, out, err);
            tl_value_release(item);
            return rc;
        }
        return tl_error_set(err, TL_ERR_TYPE, "unsupported format string passed to "
                                              "Tensor.__format__");
    }
    default: {
        const char *name = tl_value_type_name(v);
        const char *dot = strrchr(name, '.');
        return tl_error_set(err, TL_ERR_TYPE, "unsupported format string passed to %s.__format__",
                            dot ? dot + 1 : name);
    }
    }
}
