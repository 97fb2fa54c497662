/* fuzz_lab.c - libFuzzer harness: the lab loader and `tlab new`.
 *
 * Any bytes go through tl_lab_parse (byte checks, libyaml, validation).
 * For every input the loader accepts, the blank sheet (tl_lab_blank_text)
 * is a property test of `tlab new`: it must load again, have the same ops
 * and questions (same ids, same op texts), and no prediction, rule or
 * answer left. A violation aborts (a finding). A rejected input must come
 * with one located message that holds no raw control character.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blank_property.h"
#include "lab.h"

static void check_message(const tl_lab_err *err)
{
    const char *r = err->rendered;
    if (!r || !*r) {
        fprintf(stderr, "rejected without a message\n");
        abort();
    }
    /* the header line: one line, no control characters */
    const char *nl = strchr(r, '\n');
    size_t n = nl ? (size_t)(nl - r) : strlen(r);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)r[i];
        if (c < 0x20 || c == 0x7f) {
            fprintf(stderr, "control character 0x%02x in the error line: %s\n", c, r);
            abort();
        }
    }
}

static void check_blank(const tl_lab *lab)
{
    char *why = blank_violation(lab);
    if (why) {
        fprintf(stderr, "%s", why);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tl_lab_err err;
    tl_lab *lab = tl_lab_parse("fuzz.yaml", (const char *)data, size, false, &err);
    if (!lab) {
        check_message(&err);
        tl_lab_err_free(&err);
        return 0;
    }
    check_blank(lab);
    tl_lab_free(lab);
    tl_lab_err_free(&err);
    return 0;
}
