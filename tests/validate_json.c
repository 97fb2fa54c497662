/* validate_json.c - a small JSON Schema (draft 2020-12) validator for the
 * tests, so that scorecards are checked against share/ without Python.
 *
 * Usage: validate_json SCHEMA.json DOC.json   (exit 0 valid, 1 invalid,
 * 2 unreadable or a schema keyword this validator does not implement).
 *
 * It implements the keywords tlab's schema uses: type, enum, const,
 * minimum, maximum, minItems, maxItems, pattern (as a POSIX extended regex: enough for the schema's
 * simple patterns), required, properties, additionalProperties, items, $ref
 * (local "#/$defs/NAME"), not, oneOf, anyOf, allOf, if/then/else,
 * dependentRequired.
 * Annotations ($schema, $id, title, description, $comment, default,
 * examples, $defs) are skipped; any other keyword is refused (exit 2), so a
 * schema can never be validated only in part without anyone noticing.
 */
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static const cJSON *root_schema;
static int unknown_keyword;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static bool is_integer(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
           fabs(v->valuedouble) < 9.007199254740992e15;
}

static bool has_type(const cJSON *v, const char *t)
{
    if (!strcmp(t, "object")) return cJSON_IsObject(v);
    if (!strcmp(t, "array")) return cJSON_IsArray(v);
    if (!strcmp(t, "string")) return cJSON_IsString(v);
    if (!strcmp(t, "number")) return cJSON_IsNumber(v);
    if (!strcmp(t, "integer")) return is_integer(v);
    if (!strcmp(t, "boolean")) return cJSON_IsBool(v);
    if (!strcmp(t, "null")) return cJSON_IsNull(v);
    unknown_keyword = 1;
    fprintf(stderr, "validate_json: unknown type '%s'\n", t);
    return false;
}

static bool valid(const cJSON *v, const cJSON *s, const char *path, bool report);

/* report: print why v is invalid (off inside oneOf/anyOf/if probes) */
#define FAIL(...)                                                              \
    do {                                                                       \
        if (report) {                                                          \
            fprintf(stderr, "%s: ", path[0] ? path : "/");                     \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
        return false;                                                          \
    } while (0)

static const cJSON *resolve(const char *ref)
{
    if (strncmp(ref, "#/$defs/", 8) != 0)
        return NULL;
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(root_schema, "$defs");
    return defs ? cJSON_GetObjectItemCaseSensitive(defs, ref + 8) : NULL;
}

static int count_valid(const cJSON *v, const cJSON *arr, const char *path)
{
    int n = 0;
    const cJSON *sub;
    cJSON_ArrayForEach(sub, arr) n += valid(v, sub, path, false);
    return n;
}

static bool valid(const cJSON *v, const cJSON *s, const char *path, bool report)
{
    if (cJSON_IsBool(s))
        return cJSON_IsTrue(s);
    const cJSON *kw;
    char sub[1024];
    cJSON_ArrayForEach(kw, s) {
        const char *k = kw->string;
        if (!strcmp(k, "type")) {
            bool ok = false;
            if (cJSON_IsString(kw)) {
                ok = has_type(v, kw->valuestring);
            } else {
                const cJSON *t;
                cJSON_ArrayForEach(t, kw) ok = ok || has_type(v, t->valuestring);
            }
            if (!ok)
                FAIL("wrong type");
        } else if (!strcmp(k, "enum")) {
            bool ok = false;
            const cJSON *e;
            cJSON_ArrayForEach(e, kw) ok = ok || cJSON_Compare(v, e, true);
            if (!ok)
                FAIL("not one of the enum values");
        } else if (!strcmp(k, "const")) {
            if (!cJSON_Compare(v, kw, true))
                FAIL("not the const value");
        } else if (!strcmp(k, "minimum")) {
            if (cJSON_IsNumber(v) && v->valuedouble < kw->valuedouble)
                FAIL("below the minimum %g", kw->valuedouble);
        } else if (!strcmp(k, "maximum")) {
            if (cJSON_IsNumber(v) && v->valuedouble > kw->valuedouble)
                FAIL("above the maximum %g", kw->valuedouble);
        } else if (!strcmp(k, "minItems") || !strcmp(k, "maxItems")) {
            int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
            if (n >= 0 && k[1] == 'i' && n < kw->valueint)
                FAIL("fewer than %d items", kw->valueint);
            if (n >= 0 && k[1] == 'a' && n > kw->valueint)
                FAIL("more than %d items", kw->valueint);
        } else if (!strcmp(k, "pattern")) {
            if (cJSON_IsString(v)) {
                regex_t re;
                if (regcomp(&re, kw->valuestring, REG_EXTENDED | REG_NOSUB) != 0) {
                    unknown_keyword = 1;
                    FAIL("pattern %s does not compile", kw->valuestring);
                }
                int m = regexec(&re, v->valuestring, 0, NULL, 0);
                regfree(&re);
                if (m != 0)
                    FAIL("'%s' does not match %s", v->valuestring, kw->valuestring);
            }
        } else if (!strcmp(k, "not")) {
            if (valid(v, kw, path, false))
                FAIL("matches a 'not' schema");
        } else if (!strcmp(k, "required")) {
            const cJSON *r;
            if (cJSON_IsObject(v))
                cJSON_ArrayForEach(r, kw) if (!cJSON_GetObjectItemCaseSensitive(v, r->valuestring))
                    FAIL("missing required key '%s'", r->valuestring);
        } else if (!strcmp(k, "properties")) {
            const cJSON *p;
            if (cJSON_IsObject(v))
                cJSON_ArrayForEach(p, kw) {
                    const cJSON *item = cJSON_GetObjectItemCaseSensitive(v, p->string);
                    snprintf(sub, sizeof sub, "%s/%s", path, p->string);
                    if (item && !valid(item, p, sub, report))
                        return false;
                }
        } else if (!strcmp(k, "additionalProperties")) {
            const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
            const cJSON *item;
            if (cJSON_IsObject(v))
                cJSON_ArrayForEach(item, v) {
                    if (props && cJSON_GetObjectItemCaseSensitive(props, item->string))
                        continue;
                    snprintf(sub, sizeof sub, "%s/%s", path, item->string);
                    if (!valid(item, kw, sub, false))
                        FAIL("key '%s' is not allowed", item->string);
                }
        } else if (!strcmp(k, "items")) {
            const cJSON *item;
            int i = 0;
            if (cJSON_IsArray(v))
                cJSON_ArrayForEach(item, v) {
                    snprintf(sub, sizeof sub, "%s/%d", path, i++);
                    if (!valid(item, kw, sub, report))
                        return false;
                }
        } else if (!strcmp(k, "$ref")) {
            const cJSON *target = resolve(kw->valuestring);
            if (!target) {
                unknown_keyword = 1;
                FAIL("unresolvable $ref %s", kw->valuestring);
            }
            if (!valid(v, target, path, report))
                return false;
        } else if (!strcmp(k, "oneOf")) {
            int n = count_valid(v, kw, path);
            if (n != 1)
                FAIL("matches %d of the oneOf schemas, not exactly one", n);
        } else if (!strcmp(k, "anyOf")) {
            if (count_valid(v, kw, path) == 0)
                FAIL("matches none of the anyOf schemas");
        } else if (!strcmp(k, "allOf")) {
            const cJSON *a;
            cJSON_ArrayForEach(a, kw) if (!valid(v, a, path, report)) return false;
        } else if (!strcmp(k, "if")) {
            const cJSON *branch = cJSON_GetObjectItemCaseSensitive(
                s, valid(v, kw, path, false) ? "then" : "else");
            if (branch && !valid(v, branch, path, report))
                return false;
        } else if (!strcmp(k, "dependentRequired")) {
            const cJSON *dep;
            if (cJSON_IsObject(v))
                cJSON_ArrayForEach(dep, kw) {
                    if (!cJSON_GetObjectItemCaseSensitive(v, dep->string))
                        continue;
                    const cJSON *r;
                    cJSON_ArrayForEach(r, dep) if (!cJSON_GetObjectItemCaseSensitive(v, r->valuestring))
                        FAIL("'%s' needs '%s'", dep->string, r->valuestring);
                }
        } else if (!strcmp(k, "then") || !strcmp(k, "else") || !strcmp(k, "$defs") ||
                   !strcmp(k, "$schema") || !strcmp(k, "$id") || !strcmp(k, "title") ||
                   !strcmp(k, "description") || !strcmp(k, "$comment") ||
                   !strcmp(k, "default") || !strcmp(k, "examples")) {
            /* handled with "if", or annotations */
        } else {
            unknown_keyword = 1;
            fprintf(stderr, "validate_json: keyword '%s' is not implemented\n", k);
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: validate_json SCHEMA.json DOC.json\n");
        return 2;
    }
    char *stext = slurp(argv[1]), *dtext = slurp(argv[2]);
    cJSON *schema = stext ? cJSON_Parse(stext) : NULL;
    cJSON *doc = dtext ? cJSON_Parse(dtext) : NULL;
    int rc;
    if (!schema || !doc) {
        fprintf(stderr, "validate_json: cannot read or parse %s\n",
                !schema ? argv[1] : argv[2]);
        rc = 2;
    } else {
        root_schema = schema;
        bool ok = valid(doc, schema, "", true);
        rc = unknown_keyword ? 2 : ok ? 0 : 1;
    }
    cJSON_Delete(schema);
    cJSON_Delete(doc);
    free(stext);
    free(dtext);
    return rc;
}
