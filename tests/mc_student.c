/* mc_student.c - a synthetic student who holds one misconception (issue
 * #29), for tests/misconceptions.sh.
 *
 *   mc_student TAG[+TAG2] KEY.json    (KEY.json: `tlab key --format json LAB`)
 *
 * prints one line `ID ANSWER` per op of the lab: the answer the belief TAG
 * of the shipped catalogue predicts where its `when:` holds for the op's
 * evidence (the facts read back from the key, as tl_mc_facts_of reads
 * them from a verdict), else the true answer (the key's answer when it is
 * accepted, else the first accepted kind; `~` when none is). So the
 * student is right everywhere except where the belief misleads them.
 * TAG+TAG2: a student holding both beliefs (the first that applies to an
 * op answers it).
 * Exit 2 on bad input, 1 when TAG is not in the catalogue.
 *
 *   mc_student --parse CATALOGUE.yaml
 *
 * parses a catalogue: exit 0 with its tags, one a line, or exit 2 with
 * its one located error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "misconception.h"
#include "util.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    tl_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tl_buf_append(&b, chunk, n);
    fclose(f);
    return b.data ? tl_buf_steal(&b) : tl_xstrdup("");
}

static bool jbool(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int parse_only(const char *path)
{
    char *text = slurp(path);
    if (!text) {
        fprintf(stderr, "mc_student: cannot read %s\n", path);
        return 2;
    }
    char *err = NULL;
    tl_mc_catalogue *c = tl_mc_catalogue_parse(path, text, strlen(text), &err);
    free(text);
    if (!c) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return 2;
    }
    for (size_t i = 0; i < c->n; i++)
        printf("%s\n", c->entries[i].tag);
    tl_mc_catalogue_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--parse"))
        return parse_only(argv[2]);
    if (argc != 3) {
        fprintf(stderr, "usage: mc_student TAG KEY.json\n");
        return 2;
    }
    const tl_mc_catalogue *c = tl_mc_builtin();
    const tl_mc_entry *ms[2] = {NULL, NULL};
    char tags[256];
    snprintf(tags, sizeof tags, "%s", argv[1]);
    char *plus = strchr(tags, '+');
    if (plus)
        *plus++ = 0;
    for (int t = 0; t < (plus ? 2 : 1); t++) {
        const char *want = t ? plus : tags;
        for (size_t i = 0; c && i < c->n; i++)
            if (!strcmp(c->entries[i].tag, want))
                ms[t] = &c->entries[i];
        if (!ms[t]) {
            fprintf(stderr, "mc_student: no misconception `%s`\n", want);
            return 1;
        }
    }
    char *text = slurp(argv[2]);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(doc, "ops");
    if (!cJSON_IsArray(ops)) {
        fprintf(stderr, "mc_student: %s: not a key document\n", argv[2]);
        cJSON_Delete(doc);
        return 2;
    }
    const cJSON *op;
    cJSON_ArrayForEach(op, ops) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(op, "id");
        const cJSON *optext = cJSON_GetObjectItemCaseSensitive(op, "op");
        const cJSON *actual = cJSON_GetObjectItemCaseSensitive(op, "actual");
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(op, "key");
        const cJSON *answer = cJSON_GetObjectItemCaseSensitive(key, "answer");
        const cJSON *accept = cJSON_GetObjectItemCaseSensitive(key, "accept");
        if (!cJSON_IsString(id) || !cJSON_IsString(optext) || !cJSON_IsString(answer) ||
            !cJSON_IsArray(accept) || !cJSON_IsObject(actual)) {
            fprintf(stderr, "mc_student: %s: an op without id, op, actual or key\n", argv[2]);
            cJSON_Delete(doc);
            return 2;
        }
        tl_mc_facts f;
        memset(&f, 0, sizeof f);
        tl_mc_facts_kind(&f, optext->valuestring);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(actual, "kind");
        snprintf(f.actual, sizeof f.actual, "%s", cJSON_IsString(kind) ? kind->valuestring : "");
        snprintf(f.truth, sizeof f.truth, "%s", answer->valuestring);
        f.is_tensor = cJSON_GetObjectItemCaseSensitive(actual, "shape") != NULL &&
                      cJSON_GetObjectItemCaseSensitive(actual, "items") == NULL;
        f.contiguous = f.is_tensor && jbool(actual, "contiguous");
        f.shares_storage = jbool(actual, "shares_storage");
        const char *say = NULL, *belief = NULL;
        for (int t = 0; t < 2 && !belief; t++)
            if (ms[t] && tl_mc_applies(ms[t], &f))
                belief = tl_kind_name(tl_mc_predicted(ms[t]));
        bool misled = belief != NULL;
        const cJSON *a;
        cJSON_ArrayForEach(a, accept) {
            if (!cJSON_IsString(a))
                continue;
            if (!strcmp(a->valuestring, answer->valuestring))
                say = answer->valuestring;
            if (belief && !strcmp(a->valuestring, belief))
                misled = false;
        }
        if (!say && cJSON_GetArraySize(accept) > 0 &&
            cJSON_IsString(cJSON_GetArrayItem(accept, 0)))
            say = cJSON_GetArrayItem(accept, 0)->valuestring;
        if (belief)
            say = belief;
        /* `misled`: the belief's answer is wrong here (an op that supports TAG) */
        printf("%s %s%s\n", id->valuestring, say ? say : "~", misled ? " misled" : "");
    }
    cJSON_Delete(doc);
    return 0;
}
