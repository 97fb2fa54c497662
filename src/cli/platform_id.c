/* platform_id.c - the student id from a grading platform's own file
 * (platform_id.h). The file is the platform's, not the student's, but it
 * is still read with a size limit and parsed with cJSON; an id that is
 * missing or not a string/number is an error, never a guess.
 */
#include "platform_id.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *item_text(const cJSON *it)
{
    if (cJSON_IsString(it) && it->valuestring && it->valuestring[0])
        return tl_xstrdup(it->valuestring);
    if (cJSON_IsNumber(it)) {
        char b[64];
        snprintf(b, sizeof b, "%.0f", it->valuedouble);
        return tl_xstrdup(b);
    }
    return NULL;
}

char *tl_platform_id_read(const char *spec, char *msg, size_t cap)
{
    const char *colon = strchr(spec, ':');
    size_t pl = colon ? (size_t)(colon - spec) : 0;
    bool gs = colon && pl == 10 && !strncmp(spec, "gradescope", pl);
    bool pr = colon && pl == 12 && !strncmp(spec, "prairielearn", pl);
    if (!gs && !pr) {
        snprintf(msg, cap, "tlab: --student-from '%s': expected gradescope:FILE or "
                 "prairielearn:FILE", spec);
        return NULL;
    }
    const char *path = colon + 1;
    char *text = NULL;
    size_t len = 0;
    if (tl_read_file(path, (size_t)4 << 20, &text, &len) != TL_READ_OK) {
        snprintf(msg, cap, "tlab: --student-from: cannot read '%s'", path);
        free(text);
        return NULL;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    char *id = NULL;
    if (gs) {
        const cJSON *u = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "users"), 0);
        static const char *const fields[] = {"email", "sid", "id"};
        for (size_t i = 0; u && !id && i < 3; i++)
            id = item_text(cJSON_GetObjectItemCaseSensitive(u, fields[i]));
    } else {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "params");
        id = item_text(cJSON_GetObjectItemCaseSensitive(p, "student"));
    }
    cJSON_Delete(root);
    if (!id)
        snprintf(msg, cap, "tlab: --student-from: '%s' names no student (%s)", path,
                 gs ? "users[0].email, sid or id" : "params.student");
    return id;
}
