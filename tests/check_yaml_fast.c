/* check_yaml_fast.c - the fast YAML front end (yaml_fast.c) against libyaml.
 *
 * Every tree is built both ways (tl_lab_parse_tree with TL_LAB_YAML_FAST
 * and with TL_LAB_YAML_LIBYAML): either the fast path declines, or the two
 * trees are identical field by field (kind, value bytes, len, plain,
 * block_scalar, flow, n, nslots, line, col, start, end). The whole loader
 * (tl_lab_parse, validation included) must also give the same lab or the
 * same rendered error with the fast path on and off. Inputs: every YAML
 * file of the repository (labs, answers, tests/ and below, the fuzz corpus), a
 * table of small documents, documents drawn from a seeded generator, and
 * seeded mutations of the shipped files (re-indentation, scalar styles,
 * quotes, comments, trailing blanks, CR LF and CR, a BOM, empty values,
 * `- ` nesting, chomping, flow collections, random byte edits). The
 * shipped labs, answers and student sheets must all be taken by the fast
 * path; the acceptance rate on the generated inputs is printed.
 */
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab.h"
#include "util.h"

/* ---------------------------------------------------------- comparison */

static bool same_tree(const tl_ynode *a, const tl_ynode *b, char *why, size_t cap,
                      const char *path)
{
#define DIFF(field, fmt, x, y)                                                         \
    do {                                                                               \
        snprintf(why, cap, "%s: %s differs: fast " fmt ", libyaml " fmt, path, field,  \
                 x, y);                                                                \
        return false;                                                                  \
    } while (0)
    if (!a || !b) {
        if (a == b)
            return true;
        snprintf(why, cap, "%s: node missing on the %s side", path, a ? "libyaml" : "fast");
        return false;
    }
    if (a->kind != b->kind)
        DIFF("kind", "%d", (int)a->kind, (int)b->kind);
    if (a->line != b->line)
        DIFF("line", "%d", a->line, b->line);
    if (a->col != b->col)
        DIFF("col", "%d", a->col, b->col);
    if (a->start != b->start)
        DIFF("start", "%zu", a->start, b->start);
    if (a->end != b->end)
        DIFF("end", "%zu", a->end, b->end);
    if (a->plain != b->plain)
        DIFF("plain", "%d", a->plain, b->plain);
    if (a->block_scalar != b->block_scalar)
        DIFF("block_scalar", "%d", a->block_scalar, b->block_scalar);
    if (a->flow != b->flow)
        DIFF("flow", "%d", a->flow, b->flow);
    if (a->n != b->n)
        DIFF("n", "%zu", a->n, b->n);
    if (a->nslots != b->nslots)
        DIFF("nslots", "%zu", a->nslots, b->nslots);
    if (a->len != b->len)
        DIFF("len", "%zu", a->len, b->len);
    if ((a->value == NULL) != (b->value == NULL))
        DIFF("value presence", "%d", a->value != NULL, b->value != NULL);
    if (a->value && (memcmp(a->value, b->value, a->len + 1) != 0))
        DIFF("value", "'%s'", a->value, b->value);
    for (size_t i = 0; i < a->nslots; i++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%.200s/%zu", path, i);
        if (!same_tree(a->items[i], b->items[i], why, cap, sub))
            return false;
    }
    return true;
#undef DIFF
}

typedef struct stats {
    size_t inputs, fast, errors;
} stats;

/* Both front ends on text: returns true when the fast path took it. */
static bool compare(const char *name, const char *text, size_t len, stats *st)
{
    tl_lab_err ef, es;
    tl_lab *f = tl_lab_parse_tree(name, text, len, TL_LAB_YAML_FAST, &ef);
    tl_lab *s = tl_lab_parse_tree(name, text, len, TL_LAB_YAML_LIBYAML, &es);
    st->inputs++;
    if (!s)
        st->errors++;
    bool took = f != NULL;
    if (f) {
        st->fast++;
        ck_assert_msg(s != NULL, "%s: the fast path took a text libyaml refuses (%s):\n%.1500s",
                      name, es.msg, text);
        char why[1024];
        ck_assert_msg(same_tree(f->root, s->root, why, sizeof why, "root"),
                      "%.200s: trees differ: %.500s\n--- text:\n%.1500s", name, why, text);
    } else {
        if (s && getenv("YAML_FAST_VERBOSE")) /* what the fast path leaves to libyaml */
            printf("declined: %s\n", name);
        ck_assert_msg(ef.msg[0] == 0 || s == NULL,
                      "%s: the fast path failed with '%s' but libyaml loads it", name,
                      ef.msg);
    }
    tl_lab_free(f);
    tl_lab_free(s);
    tl_lab_err_free(&ef);
    tl_lab_err_free(&es);

    /* the whole loader, fast path on and off: the same outcome */
    tl_lab_err ea, eb;
    tl_lab_set_yaml(TL_LAB_YAML_AUTO);
    tl_lab *a = tl_lab_parse(name, text, len, false, &ea);
    tl_lab_set_yaml(TL_LAB_YAML_LIBYAML);
    tl_lab *b = tl_lab_parse(name, text, len, false, &eb);
    tl_lab_set_yaml(TL_LAB_YAML_AUTO);
    ck_assert_msg((a == NULL) == (b == NULL), "%s: loads %s with the fast path only", name,
                  a ? "with" : "without");
    if (!a) {
        ck_assert_msg(strcmp(ea.rendered, eb.rendered) == 0,
                      "%.200s: errors differ:\nfast: %.1000s\nlibyaml: %.1000s", name, ea.rendered,
                      eb.rendered);
    } else {
        ck_assert_uint_eq(a->nops, b->nops);
        ck_assert_uint_eq(a->nquestions, b->nquestions);
        ck_assert_msg((a->warnings == NULL) == (b->warnings == NULL) &&
                          (!a->warnings || strcmp(a->warnings, b->warnings) == 0),
                      "%s: warnings differ", name);
        char *ba = tl_lab_blank_text(a), *bb = tl_lab_blank_text(b);
        ck_assert_str_eq(ba, bb);
        free(ba);
        free(bb);
    }
    tl_lab_free(a);
    tl_lab_free(b);
    tl_lab_err_free(&ea);
    tl_lab_err_free(&eb);
    return took;
}

/* ---------------------------------------------------------- files */

typedef struct file {
    char *path;
    char *text;
    size_t len;
} file;

typedef struct files {
    file *v;
    size_t n, cap;
} files;

static const char *top(void)
{
    const char *t = getenv("top_srcdir");
    return t ? t : ".";
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    tl_buf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
        tl_buf_append(&b, chunk, k);
    fclose(fp);
    *len = b.len;
    if (!b.data)
        tl_buf_puts(&b, "");
    return tl_buf_steal(&b);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* files under dir (recursively): *.yaml, or all when all is set */
static void collect(files *fs, const char *dir, bool all)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            collect(fs, path, all || ends_with(path, "fuzz/corpus/lab"));
            continue;
        }
        if (!S_ISREG(sb.st_mode) || (!all && !ends_with(path, ".yaml")))
            continue;
        size_t len;
        char *text = slurp(path, &len);
        if (!text)
            continue;
        if (fs->n == fs->cap) {
            fs->cap = fs->cap ? 2 * fs->cap : 64;
            fs->v = tl_xrealloc(fs->v, fs->cap * sizeof *fs->v);
        }
        fs->v[fs->n++] = (file){tl_xstrdup(path), text, len};
    }
    closedir(d);
}

static files all_files(void)
{
    files fs = {0};
    static const char *const dirs[] = {"labs", "answers", "tests"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", top(), dirs[i]);
        collect(&fs, dir, false);
    }
    return fs;
}

static void free_files(files *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].path);
        free(fs->v[i].text);
    }
    free(fs->v);
}

/* the files a user ships: labs, answers and student sheets */
static bool shipped(const char *path)
{
    return strstr(path, "/labs/") || strstr(path, "/answers/") ||
           strstr(path, "/tests/students/");
}

START_TEST(test_repository_files)
{
    files fs = all_files();
    ck_assert_uint_ge(fs.n, 200);
    stats st = {0};
    size_t nshipped = 0;
    for (size_t i = 0; i < fs.n; i++) {
        bool took = compare(fs.v[i].path, fs.v[i].text, fs.v[i].len, &st);
        if (shipped(fs.v[i].path)) {
            nshipped++;
            ck_assert_msg(took, "%s: the fast path declines a shipped file", fs.v[i].path);
        }
    }
    ck_assert_uint_ge(nshipped, 25);
    printf("repository: %zu files, %zu taken by the fast path, %zu refused by libyaml\n",
           st.inputs, st.fast, st.errors);
    free_files(&fs);
}
END_TEST

/* ---------------------------------------------------------- small cases */

/* A table of small documents; `take` says whether the fast path must take
 * it (1), must decline it (0) or may do either (-1). */
static const struct {
    int take;
    const char *text;
} cases[] = {
    {1, "a: 1\n"},
    {1, "a: 1"},
    {1, "a:\n"},
    {1, "a:"},
    {1, "a: \n"},
    {1, "a: # c\nb: 2\n"},
    {1, "a : 1\n"},
    {1, "a:   b c  d   \n"},
    {1, "a: b#c\n"},
    {1, "a: b #c\n"},
    {1, "a: b\t#c\n"},
    {1, "a: b\t\n"},
    {1, "a: b:c\n"},
    {1, "a: b,c [d] {e}\n"},
    {1, "a: -1\n"},
    {1, "-a: 1\n"},
    {1, "a: 'it''s'\n"},
    {1, "a: ''\n"},
    {1, "a: \"\"\n"},
    {1, "a: \"x\\ty\\n\\\"\\\\ \\x41\\u00e9\\U0001F600 \\N\\_\\L\\P\\e\\a\\b\\v\\f\\r\\ \"\n"},
    {0, "a: \"\\0\"\n"},
    {-1, "a: \"\\/\"\n"},
    {-1, "a: \"\\'\"\n"},
    {0, "a: \"\\q\"\n"},
    {0, "a: \"\\uD800\"\n"},
    {0, "a: \"\\x4\"\n"},
    {1, "'a b': 1\n\"c\": 2\n"},
    {1, "a: \"# not a comment: really\"\n"},
    {1, "a:\n  b: 1\n  c:\n    d: 2\ne: 3\n"},
    {1, "a:\n- 1\n- 2\nb: 3\n"},
    {1, "a:\n  - 1\n  - 2\nb: 3\n"},
    {1, "- a\n- b\n"},
    {1, "- a: 1\n  b: 2\n- c: 3\n"},
    {1, "- - a\n  - b\n- c\n"},
    {1, "-\n- a\n-\n"},
    {1, "-   a: 1\n    b: 2\n"},
    {1, "a:\n-\nb: 1\n"},
    {1, "a:\n  -\n    b: 1\n"},
    {1, "- k:\n  - a\n  - b\n"},
    {1, "a: [1, 2]\nb: {c: d, e: [f, [g]]}\nc: []\nd: {}\n"},
    {1, "a: [ 1 , 2 ]\n"},
    {1, "a: ['x', \"y\", -1]\n"},
    {1, "a: {kind: view, shape: [2, 3]}  # c\n"},
    {1, "a: [a b, c]\n"},
    {0, "a: [1, 2,]\n"},
    {0, "a: [1,\n  2]\n"},
    {0, "a: [a: 1]\n"},
    {0, "a: {b}\n"},
    {-1, "a: {\"b\":1}\n"},
    {-1, "a: [b:c]\n"},
    {1, "a: |\n  x\n  y\n"},
    {1, "a: |-\n  x\n  y\n\n"},
    {1, "a: |+\n  x\n  y\n\n\n"},
    {1, "a: >\n  x\n  y\n\n  z\n"},
    {1, "a: >-\n  x\n  y\n\n\n  z\n"},
    {1, "a: >+\n  x\n\n"},
    {1, "a: |\n\n  x\n"},
    {1, "a: |\n  x\n\n# c\nb: 1\n"},
    {1, "a: |\n    x\n      y\n    z\nb: 1\n"},
    {1, "a: | # c\n  x\n"},
    {1, "a: |\n  x"},
    {1, "a: |\n  x\n  "},
    {1, "a: |\n  x\n    \n  y\n"},
    {1, "a: |\n  # not a comment\n"},
    {1, "- |\n  x\n- >-\n  y\n  z\n"},
    {1, "- a: |\n    x\n  b: 1\n"},
    {0, "a: >\n  x\n   y\n"},
    {0, "a: |2\n  x\n"},
    {0, "a: |\nb: 1\n"},
    {-1, "a: |\n   \n  x\n"},
    {1, "---\na: 1\n"},
    {1, "--- # c\na: 1\n"},
    {1, "# c\n\n---\n\na: 1\n"},
    {1, "\xEF\xBB\xBF" "a: 1\nb: 2\n"},
    {1, "\xEF\xBB\xBF" "---\na: 1\n"},
    {1, "a: 1\r\nb:\r\n  - x\r\n  - |\r\n    y\r\n    z\r\n"},
    {1, "a: 1\rb: >\r  x\r  y\r"},
    {1, "  a: 1\n  b: 2\n"},
    {1, "a: \xc3\xa9t\xc3\xa9\n\xc3\xa9: 1\n"},
    {0, "a: 1\n---\nb: 2\n"},
    {0, "a: 1\n...\n"},
    {0, "%YAML 1.1\n---\na: 1\n"},
    {0, "a: &x 1\nb: *x\n"},
    {0, "a: !!str 1\n"},
    {0, "? a\n: 1\n"},
    {1, "a: b\n  c\n"},
    {1, "a: b  \n   c d  \n\n  \n  e # c\nf: 1\n"},
    {0, "a: b\n  c\n# c\n  d: 1\n"},
    {1, "- a\n  - b\n- c\n   d\n"},
    {1, "k:\n- a\n b\n- c\n"},
    {1, "- k: a\n    b\n  l: 2\n"},
    {1, "a: b\r\n  c\r\n\r\n  d\r\n"},
    {1, "a: b\n  [c] {d} - e 'f' \"g\" &h *i !j |k >l\n"},
    {1, "a: b\n  #c\n"},
    {0, "a: b\n  c: d\n"},
    {0, "a: b\n  c\nd\n"},
    {0, "- k: a\n  b\n"},
    {0, "a: 'b\n  c'\n"},
    {0, "a:\tb\n"},
    {0, "a: b: c\n"},
    {0, "a: 1\n b: 2\n"},
    {0, "a: 1\n- b\n"},
    {0, "- a\nb: 1\n"},
    {0, "a: - b\n"},
    {0, "just a scalar\n"},
    {0, "# only a comment\n"},
    {0, "a: 1\n  # c\n b\n"},
    {1, "a: 1\n    # deeper comment\nb: 2\n"},
    {0, "a: 'x' y\n"},
    {0, "a: [x] y\n"},
    {0, "[a]: 1\n"},
    {-1, "a: \"x\"#c\n"},
    {-1, "a: 1 # c\n  # d\n"},
    {-1, "a:\n  b\n"},
    {-1, "- \"a\": 1\n  b: 2\n"},
    {-1, "a: @x\n"},
    {-1, "a: `x\n"},
    {-1, "a: %x\n"},
};

START_TEST(test_cases)
{
    stats st = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32];
        snprintf(name, sizeof name, "case%zu.yaml", i);
        bool took = compare(name, cases[i].text, strlen(cases[i].text), &st);
        if (cases[i].take >= 0)
            ck_assert_msg(took == (cases[i].take == 1), "case %zu: the fast path %s:\n%.1500s", i,
                          took ? "takes it" : "declines it", cases[i].text);
    }
}
END_TEST

/* ---------------------------------------------------------- generators */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* YAML_FAST_ROUNDS=N: N times the generated and mutated inputs, each round
 * from other seeds (a longer search than make check's, by hand) */
static int rounds(void)
{
    const char *r = getenv("YAML_FAST_ROUNDS");
    int n = r ? atoi(r) : 1;
    return n > 0 ? n : 1;
}

static const char *pick(const char *const *v, size_t n) { return v[below(n)]; }
#define PICK(v) pick((v), sizeof(v) / sizeof *(v))

static const char *const plain_scalars[] = {
    "view", "copy", "x[1:]", "a b", "a  b", "x.t().reshape(8, 3)", "-1", "1.5", "~",
    "null", "true", "a:b", "a#b", "a,b", "[x]", "{x}", "é", "x's", "it \"q\"",
    "a - b", "a ? b", "-x", "...x", "---x", "x:", "x: y", "x #y", "#x", "&x", "*x",
    "!x", "|x", ">x", "%x", "@x", "`x", "?x", ":x", "- x", "a\tb", "",
};

/* a scalar in a random style that must stay one YAML value */
static void emit_scalar(tl_buf *b, int indent, bool flow)
{
    const char *v = PICK(plain_scalars);
    switch (below(flow ? 3 : 5)) {
    case 0:
        tl_buf_puts(b, v);
        break;
    case 1:
        tl_buf_putc(b, '\'');
        for (const char *p = v; *p; p++) {
            if (*p == '\'')
                tl_buf_putc(b, '\'');
            tl_buf_putc(b, *p);
        }
        tl_buf_putc(b, '\'');
        break;
    case 2:
        tl_buf_putc(b, '"');
        for (const char *p = v; *p; p++) {
            if (*p == '"' || *p == '\\')
                tl_buf_putc(b, '\\');
            tl_buf_putc(b, *p);
        }
        if (below(4) == 0)
            tl_buf_puts(b, below(2) ? "\\n\\t" : "\\u00e9\\x41");
        tl_buf_putc(b, '"');
        break;
    default: {
        static const char *const heads[] = {"|", ">", "|-", ">-", "|+", ">+", "| # c"};
        tl_buf_puts(b, PICK(heads));
        tl_buf_putc(b, '\n');
        int extra = 1 + (int)below(3);
        int lines = 1 + (int)below(4);
        for (int i = 0; i < lines; i++) {
            if (below(4) == 0)
                tl_buf_puts(b, below(2) ? "\n" : "  \n");
            tl_buf_printf(b, "%*s%s\n", indent + extra, "", *v ? v : "z");
            if (below(6) == 0)
                tl_buf_printf(b, "%*s  more\n", indent + extra, "");
        }
        if (below(3) == 0)
            tl_buf_puts(b, "\n\n");
        return; /* ends its own line */
    }
    }
}

static void emit_flow(tl_buf *b, int depth)
{
    bool map = below(2);
    tl_buf_putc(b, map ? '{' : '[');
    int n = (int)below(4);
    const char *sp = below(3) ? " " : below(2) ? "" : "  ";
    for (int i = 0; i < n; i++) {
        if (i)
            tl_buf_printf(b, ",%s", sp);
        if (map) {
            emit_scalar(b, 0, true);
            tl_buf_puts(b, ": ");
        }
        if (depth < 3 && below(4) == 0)
            emit_flow(b, depth + 1);
        else
            emit_scalar(b, 0, true);
    }
    tl_buf_putc(b, map ? '}' : ']');
}

static void emit_node(tl_buf *b, int indent, int depth);

/* a value after `key:` or `- ` on this line */
static void emit_value(tl_buf *b, int indent, int depth, bool seq_item)
{
    size_t r = below(depth > 4 ? 4 : 7);
    if (r < 2) {
        emit_scalar(b, indent, false);
        if (b->len && b->data[b->len - 1] != '\n') {
            if (below(5) == 0)
                tl_buf_puts(b, below(2) ? "  # c" : " \t ");
            tl_buf_putc(b, '\n');
        }
    } else if (r == 2) {
        emit_flow(b, 0);
        tl_buf_puts(b, below(4) ? "\n" : " # c\n");
    } else if (r == 3) {
        tl_buf_puts(b, below(3) ? "\n" : " # c\n");
    } else {
        if (seq_item && below(2)) {
            /* compact: the node starts on this line */
            emit_node(b, -1 - (indent + 2), depth + 1);
            return;
        }
        tl_buf_puts(b, "\n");
        int step = 1 + (int)below(3);
        if (!seq_item && below(3) == 0 && r == 4)
            step = 0; /* an indentless sequence */
        if (step == 0) {
            int n = 1 + (int)below(3);
            for (int i = 0; i < n; i++) {
                tl_buf_printf(b, "%*s-%s", indent, "", below(2) ? " " : "   ");
                emit_value(b, indent, depth + 1, true);
            }
            return;
        }
        emit_node(b, indent + step, depth + 1);
    }
}

/* a block collection at indent (negative: -1 - indent, its first line
 * already started) */
static void emit_node(tl_buf *b, int indent, int depth)
{
    bool started = indent < 0;
    if (started)
        indent = -1 - indent;
    int n = 1 + (int)below(4);
    bool seq = below(2);
    for (int i = 0; i < n; i++) {
        if (i || !started)
            tl_buf_printf(b, "%*s", indent, "");
        if (below(8) == 0 && i) {
            tl_buf_printf(b, "# comment\n%*s", indent, "");
        }
        if (seq) {
            int gap = below(4) ? 1 : 3;
            tl_buf_printf(b, "-%*s", gap, "");
            emit_value(b, indent + 1 + gap - 2, depth + 1, true);
        } else {
            static const char *const keys[] = {"a", "b c", "'q'", "\"d\"", "id", "op",
                                               "-k", "k#"};
            tl_buf_printf(b, "%s%d:%s", PICK(keys), i, below(6) ? " " : "  ");
            emit_value(b, indent, depth + 1, false);
        }
    }
}

START_TEST(test_generated)
{
    rng_state = 0x9E3779B97F4A7C15ULL;
    stats st = {0};
    for (int k = 0; k < 3000 * rounds(); k++) {
        tl_buf b = {0};
        if (below(10) == 0)
            tl_buf_puts(&b, "---\n");
        emit_node(&b, (int)below(2), 0);
        char name[32];
        snprintf(name, sizeof name, "gen%d.yaml", k);
        compare(name, b.data, b.len, &st);
        tl_buf_free(&b);
    }
    printf("generated: %zu documents, %zu taken by the fast path (%.1f%%), "
           "%zu refused by libyaml\n",
           st.inputs, st.fast, 100.0 * (double)st.fast / (double)st.inputs, st.errors);
    ck_assert_uint_ge(st.fast, st.inputs / 4);
}
END_TEST

/* ---------------------------------------------------------- mutations */

typedef struct text {
    char *s;
    size_t n;
} text;

static void replace(text *t, size_t at, size_t del, const char *ins, size_t nins)
{
    if (at > t->n)
        at = t->n;
    if (del > t->n - at)
        del = t->n - at;
    char *s = tl_xmalloc(t->n - del + nins + 1);
    memcpy(s, t->s, at);
    memcpy(s + at, ins, nins);
    memcpy(s + at + nins, t->s + at + del, t->n - at - del);
    t->n = t->n - del + nins;
    s[t->n] = 0;
    free(t->s);
    t->s = s;
}

/* the start of a random line, and its end (before the break) */
static size_t rand_line(const text *t, size_t *end)
{
    size_t at = below(t->n + 1);
    while (at > 0 && t->s[at - 1] != '\n' && t->s[at - 1] != '\r')
        at--;
    size_t e = at;
    while (e < t->n && t->s[e] != '\n' && t->s[e] != '\r')
        e++;
    *end = e;
    return at;
}

static char *steal(tl_buf *b)
{
    char *s = tl_buf_steal(b);
    return s ? s : tl_xstrdup("");
}

static void mutate(text *t)
{
    size_t e, at = rand_line(t, &e);
    size_t ind = 0;
    while (at + ind < e && t->s[at + ind] == ' ')
        ind++;
    const char *line = t->s + at;
    const char *colon = NULL;
    for (size_t i = ind; at + i + 1 < e + 1 && i + 1 <= e - at; i++)
        if (line[i] == ':' && (at + i + 1 == e || line[i + 1] == ' ')) {
            colon = line + i;
            break;
        }
    switch (below(22)) {
    case 0: { /* re-indent every line by a factor */
        int f = 2 + (int)below(2);
        tl_buf b = {0};
        for (size_t i = 0; i < t->n;) {
            size_t sp = 0;
            while (i + sp < t->n && t->s[i + sp] == ' ')
                sp++;
            for (size_t k = 0; k < sp * (size_t)f / 2; k++)
                tl_buf_putc(&b, ' ');
            i += sp;
            while (i < t->n && t->s[i] != '\n')
                tl_buf_putc(&b, t->s[i++]);
            if (i < t->n)
                tl_buf_putc(&b, t->s[i++]);
        }
        free(t->s);
        t->n = b.len;
        t->s = steal(&b);
        break;
    }
    case 1: /* one line more or less indented */
        if (below(2) && ind)
            replace(t, at, 1 + below(ind), "", 0);
        else
            replace(t, at, 0, "    ", 1 + below(4));
        break;
    case 2: { /* quote a plain value */
        if (!colon)
            break;
        size_t v = (size_t)(colon - t->s) + 1;
        while (v < e && t->s[v] == ' ')
            v++;
        if (v >= e || strchr("'\"|>[{&*!#", t->s[v]))
            break;
        tl_buf b = {0};
        bool dq = below(2);
        tl_buf_putc(&b, dq ? '"' : '\'');
        for (size_t i = v; i < e; i++) {
            if (!dq && t->s[i] == '\'')
                tl_buf_putc(&b, '\'');
            if (dq && (t->s[i] == '"' || t->s[i] == '\\'))
                tl_buf_putc(&b, '\\');
            tl_buf_putc(&b, t->s[i]);
        }
        tl_buf_putc(&b, dq ? '"' : '\'');
        replace(t, v, e - v, b.data, b.len);
        tl_buf_free(&b);
        break;
    }
    case 3: { /* a plain value as a block scalar */
        if (!colon)
            break;
        size_t v = (size_t)(colon - t->s) + 1;
        while (v < e && t->s[v] == ' ')
            v++;
        if (v >= e || strchr("'\"|>[{&*!#", t->s[v]))
            break;
        static const char *const heads[] = {"|", ">", "|-", ">-", "|+", ">+"};
        tl_buf b = {0};
        tl_buf_printf(&b, "%s\n%*s", PICK(heads), (int)(ind + 2 + below(3)), "");
        tl_buf_append(&b, t->s + v, e - v);
        replace(t, v, e - v, b.data, b.len);
        tl_buf_free(&b);
        break;
    }
    case 4: { /* a comment line, anywhere, at any indentation */
        char c[64];
        int k = snprintf(c, sizeof c, "%*s# note: %d\n", (int)below(10), "", (int)below(100));
        replace(t, at, 0, c, (size_t)k);
        break;
    }
    case 5: /* a comment at the end of a line, with or without a blank */
    {
        static const char *const tails[] = {" # c", " # c", "#c", "\t# c"};
        const char *c = PICK(tails);
        replace(t, e, 0, c, strlen(c));
        break;
    }
    case 6: { /* trailing blanks */
        static const char *const tails[] = {" ", "   ", "\t", " \t "};
        const char *s = PICK(tails);
        replace(t, e, 0, s, strlen(s));
        break;
    }
    case 7: { /* CR LF or CR line ends */
        bool cr_only = below(2);
        tl_buf b = {0};
        for (size_t i = 0; i < t->n; i++) {
            if (t->s[i] == '\n')
                tl_buf_puts(&b, cr_only ? "\r" : "\r\n");
            else
                tl_buf_putc(&b, t->s[i]);
        }
        free(t->s);
        t->n = b.len;
        t->s = steal(&b);
        break;
    }
    case 8: /* a BOM */
        replace(t, 0, 0, "\xEF\xBB\xBF", 3);
        break;
    case 9: { /* an empty value, or ~ */
        if (!colon)
            break;
        size_t v = (size_t)(colon - t->s) + 1;
        const char *nv = below(2) ? "" : " ~";
        replace(t, v, e - v, nv, strlen(nv));
        break;
    }
    case 10: { /* `- key: v` <-> `-\n  key: v` */
        if (ind + 1 < e - at && line[ind] == '-' && line[ind + 1] == ' ') {
            char c[80];
            int k = snprintf(c, sizeof c, "-\n%*s", (int)(ind + 2), "");
            replace(t, at + ind, 2, c, (size_t)k);
        } else if (colon) {
            replace(t, at + ind, 0, "- ", 2);
        }
        break;
    }
    case 11: { /* chomping of a block scalar header */
        const char *h = NULL;
        for (size_t i = at; i < e; i++)
            if ((t->s[i] == '|' || t->s[i] == '>') && i > at && t->s[i - 1] == ' ') {
                h = t->s + i;
                break;
            }
        if (!h)
            break;
        size_t hp = (size_t)(h - t->s), hl = 1;
        if (hp + 1 < t->n && (t->s[hp + 1] == '-' || t->s[hp + 1] == '+'))
            hl = 2;
        static const char *const heads[] = {"|", ">", "|-", ">-", "|+", ">+", "|2", "> #c"};
        const char *nh = PICK(heads);
        replace(t, hp, hl, nh, strlen(nh));
        break;
    }
    case 12: /* blank lines, some with spaces */
    {
        const char *bl = below(2) ? "\n" : "      \n\n";
        replace(t, at, 0, bl, strlen(bl));
        break;
    }
    case 13: { /* a flow collection for a value */
        if (!colon)
            break;
        size_t v = (size_t)(colon - t->s) + 1;
        static const char *const flows[] = {
            " [4, 6]", " {kind: view, shape: [2, 3]}", " []", " {}", " [a, 'b', \"c\"]",
            " {value: [[1.0, 2.0], [3.0]]}", " [ 1 ,2 ]", " {a: b,c: d}", " [a, b,]",
            " [a,\n b]", " {a: }", " [a: b]"};
        const char *f = PICK(flows);
        replace(t, v, e - v, f, strlen(f));
        break;
    }
    case 14: { /* flow <-> block: `{a: b, c: d}` spread over lines */
        const char *ob = memchr(line, '{', e - at);
        if (!ob || !colon)
            break;
        const char *cb = memchr(ob, '}', e - (size_t)(ob - t->s));
        if (!cb)
            break;
        tl_buf b = {0};
        tl_buf_putc(&b, '\n');
        tl_buf_printf(&b, "%*s", (int)(ind + 2), "");
        for (const char *p = ob + 1; p < cb; p++) {
            if (*p == ',' && p + 1 < cb && p[1] == ' ') {
                tl_buf_printf(&b, "\n%*s", (int)(ind + 2), "");
                p++;
                continue;
            }
            tl_buf_putc(&b, *p);
        }
        size_t v = (size_t)(ob - t->s);
        replace(t, v, (size_t)(cb - ob) + 1, b.data, b.len);
        tl_buf_free(&b);
        break;
    }
    case 16: { /* a plain value wrapped onto the next line, at any depth */
        if (!colon)
            break;
        const char *sp = memchr(colon + 2 < t->s + e ? colon + 2 : t->s + e, ' ',
                                (size_t)(t->s + e - (colon + 2 < t->s + e ? colon + 2 : t->s + e)));
        if (!sp)
            break;
        char c[80];
        int k = snprintf(c, sizeof c, "\n%s%*s", below(4) ? "" : "\n", (int)below(ind + 4), "");
        replace(t, (size_t)(sp - t->s), 1, c, (size_t)k);
        break;
    }
    case 15: /* `---` first, or `...`/`---` after */
        if (below(2))
            replace(t, 0, 0, "---\n", 4);
        else
        {
            const char *tail = below(2) ? "...\n" : "---\na: 1\n";
            replace(t, t->n, 0, tail, strlen(tail));
        }
        break;
    default: { /* random byte edits */
        static const char bytes[] = ":-#'\"[]{},|>!&*?% \n\t\r\\ax1~";
        int k = 1 + (int)below(3);
        for (int i = 0; i < k; i++) {
            size_t p = below(t->n + 1);
            char c = bytes[below(sizeof bytes - 1)];
            switch (below(3)) {
            case 0: replace(t, p, 0, &c, 1); break;
            case 1: replace(t, p, 1, "", 0); break;
            default: replace(t, p, 1, &c, 1); break;
            }
        }
        break;
    }
    }
}

START_TEST(test_mutations)
{
    files fs = all_files();
    rng_state = 0x2545F4914F6CDD1DULL;
    stats st = {0};
    size_t per = 4000 * (size_t)rounds() / (fs.n ? fs.n : 1) + 1;
    for (size_t i = 0; i < fs.n; i++) {
        for (size_t k = 0; k < per; k++) {
            text t = {tl_xmalloc(fs.v[i].len + 1), fs.v[i].len};
            memcpy(t.s, fs.v[i].text, t.n);
            t.s[t.n] = 0;
            int m = 1 + (int)below(4);
            for (int j = 0; j < m; j++)
                mutate(&t);
            char name[4200];
            snprintf(name, sizeof name, "%s~%zu", fs.v[i].path, k);
            compare(name, t.s, t.n, &st);
            free(t.s);
        }
    }
    printf("mutated: %zu variants, %zu taken by the fast path (%.1f%%), "
           "%zu refused by libyaml\n",
           st.inputs, st.fast, 100.0 * (double)st.fast / (double)st.inputs, st.errors);
    ck_assert_uint_ge(st.inputs, 4000);
    ck_assert_uint_ge(st.fast, st.inputs / 4);
    free_files(&fs);
}
END_TEST

/* the node limit: a tree over TL_LAB_MAX_NODES is declined, and libyaml
 * reports it as before */
START_TEST(test_limits)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "a:\n");
    for (int i = 0; i < TL_LAB_MAX_NODES; i++)
        tl_buf_puts(&b, "- x\n");
    tl_lab_err err;
    ck_assert_ptr_null(tl_lab_parse_tree("big.yaml", b.data, b.len, TL_LAB_YAML_FAST, &err));
    ck_assert_str_eq(err.msg, "");
    stats st = {0};
    compare("big.yaml", b.data, b.len, &st);
    tl_buf_free(&b);
    /* depth: 64 open collections load, 65 do not */
    for (int depth = 63; depth <= 66; depth++) {
        tl_buf d = {0};
        for (int i = 0; i < depth; i++)
            tl_buf_printf(&d, "%*sk:\n", i, "");
        tl_buf_printf(&d, "%*sk: v\n", depth, "");
        bool took = compare("deep.yaml", d.data, d.len, &st);
        ck_assert_int_eq(took, depth + 1 <= TL_LAB_MAX_DEPTH);
        tl_buf_free(&d);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("yaml_fast");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120 * rounds());
    tcase_add_test(tc, test_cases);
    tcase_add_test(tc, test_repository_files);
    tcase_add_test(tc, test_generated);
    tcase_add_test(tc, test_mutations);
    tcase_add_test(tc, test_limits);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
