/* jsonnum.c - JSON number nodes that carry their exact text, and the
 * compact printer that writes it (see jsonnum.h).
 *
 * Invariant: a node made here is a cJSON number whose valuestring (owned by
 * the node, allocated with cJSON_malloc so that cJSON_Delete frees it) is
 * the number's exact JSON text; valuedouble holds the nearest double.
 */
#include "jsonnum.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *with_text(double d, const char *text)
{
    cJSON *n = cJSON_CreateNumber(d);
    if (!n)
        return NULL;
    size_t len = strlen(text) + 1;
    char *s = cJSON_malloc(len);
    if (!s) {
        cJSON_Delete(n);
        return NULL;
    }
    memcpy(s, text, len);
    n->valuestring = s;
    return n;
}

cJSON *tl_json_int(int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return with_text((double)v, buf);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v. An integral
 * v under 10^15 in magnitude prints as its digits under %.15g (no
 * exponent, no point), which is written here without snprintf/strtod:
 * tensors' values are mostly such, and a scorecard's evidence formats
 * thousands of them. */
void tl_json_shortest(double v, char *buf, size_t cap)
{
    if (cap >= 24 && v == floor(v) && fabs(v) < 1e15) {
        char tmp[24];
        int n = 0;
        unsigned long long u = (unsigned long long)fabs(v);
        do {
            tmp[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        size_t k = 0;
        if (signbit(v))
            buf[k++] = '-';
        while (n)
            buf[k++] = tmp[--n];
        buf[k] = 0;
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

cJSON *tl_json_float(double v)
{
    char buf[40];
    tl_json_shortest(v, buf, sizeof buf);
    return with_text(v, buf);
}

void tl_json_number_text(const cJSON *n, char *buf, size_t cap)
{
    if (n->valuestring) {
        snprintf(buf, cap, "%s", n->valuestring);
        return;
    }
    double d = n->valuedouble;
    if (!isfinite(d))
        snprintf(buf, cap, "null");
    else if (d == floor(d) && fabs(d) < 9.2e18)
        snprintf(buf, cap, "%lld", (long long)d);
    else
        tl_json_shortest(d, buf, cap);
}

void tl_json_append_compact(tl_buf *b, const cJSON *it)
{
    if (cJSON_IsNumber(it)) {
        char buf[64];
        tl_json_number_text(it, buf, sizeof buf);
        tl_buf_puts(b, buf);
        return;
    }
    bool obj = cJSON_IsObject(it);
    if (obj || cJSON_IsArray(it)) {
        tl_buf_putc(b, obj ? '{' : '[');
        for (const cJSON *c = it->child; c; c = c->next) {
            if (obj) {
                cJSON *key = cJSON_CreateString(c->string ? c->string : "");
                char *ks = key ? cJSON_PrintUnformatted(key) : NULL;
                tl_buf_puts(b, ks ? ks : "\"\"");
                tl_buf_putc(b, ':');
                cJSON_free(ks);
                cJSON_Delete(key);
            }
            tl_json_append_compact(b, c);
            if (c->next)
                tl_buf_putc(b, ',');
        }
        tl_buf_putc(b, obj ? '}' : ']');
        return;
    }
    /* a leaf: cJSON prints only this item, not its siblings */
    char *s = cJSON_PrintUnformatted(it);
    tl_buf_puts(b, s ? s : "null");
    cJSON_free(s);
}

char *tl_json_print_compact(const cJSON *item)
{
    tl_buf b = {0};
    tl_json_append_compact(&b, item);
    return tl_buf_steal(&b);
}
