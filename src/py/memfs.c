/* memfs.c - the run's in-memory file system, open() and the os module.
 *
 * Design: a per-thread table of paths -> refcounted tl_memfile (memfs.h),
 * made by the first interpreter of a run and dropped by the last, so it
 * lives for one run and never touches the disk. Paths are compared after
 * a light normalisation ("./a" and "a" are one file, "//" is "/"); there
 * are no directories (os.listdir lists the files), which is all a lesson
 * on checkpoints needs. The table is linear: a run holds a handful of
 * files, and every file's bytes are charged to the memory ledger, so the
 * count is bounded by --max-bytes too.
 *
 * open() returns a file object (a host object, value.h TL_V_OBJECT) with
 * Python's text-mode behaviour for str data: write, read, readline,
 * readlines, iteration by line, seek/tell, close, `with`. tlab has no
 * bytes type, so a binary-mode file takes and returns nothing but what
 * torch.save/torch.load pass through it (serialize.c).
 */
#include "memfs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "context.h"
#include "storage.h"
#include "util.h"

typedef struct memfs {
    int users;
    tl_memfile **files;
    size_t n, cap;
} memfs;

static _Thread_local memfs fs;

void tl_memfs_enter(void) { fs.users++; }

size_t tl_memfs_files(void) { return fs.n; }

void tl_memfs_leave(void)
{
    if (fs.users <= 0 || --fs.users > 0)
        return;
    for (size_t i = 0; i < fs.n; i++)
        tl_memfile_release(fs.files[i]);
    free(fs.files);
    memset(&fs, 0, sizeof fs);
}

/* "./a//b" -> "a/b"; the result is owned by the caller */
static char *normalise(const char *path)
{
    size_t n = strlen(path);
    char *out = tl_xmalloc(n + 1), *o = out;
    const char *p = path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    for (; *p; p++) {
        if (*p == '/' && o > out && o[-1] == '/')
            continue;
        if (*p == '/' && p[1] == '.' && p[2] == '/') {
            p++;
            continue;
        }
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

static size_t find(const char *norm)
{
    for (size_t i = 0; i < fs.n; i++)
        if (strcmp(fs.files[i]->path, norm) == 0)
            return i;
    return SIZE_MAX;
}

static int not_found(const char *path, tl_error *err)
{
    tl_buf b = {0};
    tl_value *s = tl_str(path);
    tl_value_repr_bounded(s, &b, 300);
    tl_value_release(s);
    tl_error_set(err, TL_ERR_FILENOTFOUND, "[Errno 2] No such file or directory: %s",
                 tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

tl_memfile *tl_memfs_open(const char *path, tl_error *err)
{
    char *norm = normalise(path);
    size_t i = find(norm);
    free(norm);
    if (i == SIZE_MAX) {
        not_found(path, err);
        return NULL;
    }
    fs.files[i]->refcount++;
    return fs.files[i];
}

bool tl_memfs_exists(const char *path)
{
    char *norm = normalise(path);
    bool r = find(norm) != SIZE_MAX;
    free(norm);
    return r;
}

static void uncharge(tl_memfile *f)
{
    tl_alloc_objects_add(-(int64_t)f->charged);
    f->charged = 0;
}

void tl_memfile_release(tl_memfile *f)
{
    if (!f || --f->refcount > 0)
        return;
    tl_memfile_truncate(f);
    uncharge(f);
    free(f->path);
    free(f);
}

tl_memfile *tl_memfs_create(const char *path, tl_error *err)
{
    if (fs.users <= 0) {
        tl_error_set(err, TL_ERR_INTERNAL, "no run is active: files live in a run's memory");
        return NULL;
    }
    if (!path[0]) {
        not_found(path, err);
        return NULL;
    }
    char *norm = normalise(path);
    size_t i = find(norm);
    tl_memfile *f = tl_xcalloc(1, sizeof *f);
    f->refcount = 2; /* the table's and the caller's */
    f->path = norm;
    int rc = tl_memfile_charge(f, (int64_t)(sizeof *f + strlen(norm) + 1), err);
    if (rc < 0) {
        free(f->path);
        free(f);
        return NULL;
    }
    if (i != SIZE_MAX) {
        tl_memfile_release(fs.files[i]);
        fs.files[i] = f;
        return f;
    }
    if (fs.n == fs.cap) {
        fs.cap = fs.cap ? 2 * fs.cap : 8;
        fs.files = tl_xrealloc(fs.files, fs.cap * sizeof *fs.files);
    }
    fs.files[fs.n++] = f;
    return f;
}

int tl_memfs_remove(const char *path, tl_error *err)
{
    char *norm = normalise(path);
    size_t i = find(norm);
    free(norm);
    if (i == SIZE_MAX)
        return not_found(path, err);
    tl_memfile *f = fs.files[i];
    fs.files[i] = fs.files[--fs.n];
    tl_memfile_release(f);
    return 0;
}

int tl_memfile_charge(tl_memfile *f, int64_t n, tl_error *err)
{
    if (n > 0 && tl_alloc_over_limit((size_t)n)) {
        tl_context_ledger_refused((size_t)n);
        return tl_error_set(err, TL_ERR_LIMIT,
                            "memory limit exceeded: %" PRId64 " more bytes in the file '%s' "
                            "do not fit in --max-bytes (files live in the run's memory; "
                            "%zu bytes of storage and objects are live)",
                            n, f->path, tl_alloc_live() + tl_alloc_objects());
    }
    if (n < 0 && (size_t)-n > f->charged)
        n = -(int64_t)f->charged;
    tl_alloc_objects_add(n);
    f->charged = (size_t)((int64_t)f->charged + n);
    return 0;
}

int tl_memfile_write(tl_memfile *f, size_t off, const void *p, size_t n, tl_error *err)
{
    if (off > SIZE_MAX / 2 || n > SIZE_MAX / 2)
        return tl_error_set(err, TL_ERR_LIMIT, "file too large");
    size_t end = off + n;
    if (end > f->cap) {
        size_t cap = f->cap ? f->cap : 64;
        while (cap < end)
            cap *= 2;
        if (tl_memfile_charge(f, (int64_t)(cap - f->cap), err) < 0)
            return -1;
        f->data = tl_xrealloc(f->data, cap);
        f->cap = cap;
    }
    if (off > f->len)
        memset(f->data + f->len, 0, off - f->len);
    if (n)
        memcpy(f->data + off, p, n);
    if (end > f->len)
        f->len = end;
    return 0;
}

void tl_memfile_truncate(tl_memfile *f)
{
    if (f->payload && f->payload_drop)
        f->payload_drop(f->payload);
    f->payload = NULL;
    f->payload_drop = NULL;
    f->payload_tag = NULL;
    free(f->data);
    f->data = NULL;
    tl_memfile_charge(f, -(int64_t)(f->cap > f->len ? f->cap : f->len), NULL);
    f->len = f->cap = 0;
}

int tl_memfile_set_payload(tl_memfile *f, const char *tag, void *payload,
                           void (*drop)(void *), size_t size, tl_error *err)
{
    if (tl_memfile_charge(f, (int64_t)size, err) < 0)
        return -1;
    tl_memfile_truncate(f);
    f->payload_tag = tag;
    f->payload = payload;
    f->payload_drop = drop;
    f->len = size; /* the modelled size; charged above, given back by truncate */
    return 0;
}

int tl_memfs_path_arg(const tl_value *v, const char *fname, const char **out, tl_error *err)
{
    if (v && v->kind == TL_V_STR) {
        if (memchr(v->u.str.s, '\0', v->u.str.len))
            return tl_error_set(err, TL_ERR_VALUE, "embedded null byte");
        *out = v->u.str.s;
        return 0;
    }
    return tl_error_set(err, TL_ERR_TYPE,
                        "%s: path should be string, bytes or os.PathLike, not %s", fname,
                        v ? tl_value_type_name(v) : "NoneType");
}

/* ---------------------------------------------------------------------- */
/* file objects */

typedef struct fileobj {
    tl_memfile *f;
    char mode[8];   /* as given */
    bool readable, writable, append, binary, closed;
    size_t pos;
    char *name;
} fileobj;

static tl_value *file_attr(tl_value *obj, const char *name, tl_error *err);
static void file_repr(const tl_value *obj, tl_buf *b);
static tl_value *file_iter(tl_value *obj, tl_error *err);

static void file_drop(void *p)
{
    fileobj *fo = p;
    tl_memfile_release(fo->f);
    free(fo->name);
    free(fo);
}

static const tl_objclass text_class = {"TextIOWrapper", file_attr, file_repr, file_drop,
                                       NULL, NULL, NULL, NULL, file_iter};
static const tl_objclass reader_class = {"BufferedReader", file_attr, file_repr, file_drop,
                                         NULL, NULL, NULL, NULL, NULL};
static const tl_objclass writer_class = {"BufferedWriter", file_attr, file_repr, file_drop,
                                         NULL, NULL, NULL, NULL, NULL};
static const tl_objclass random_class = {"BufferedRandom", file_attr, file_repr, file_drop,
                                         NULL, NULL, NULL, NULL, NULL};

static fileobj *fileobj_of(const tl_value *v)
{
    fileobj *fo = tl_value_object_data(v, &text_class);
    if (!fo)
        fo = tl_value_object_data(v, &reader_class);
    if (!fo)
        fo = tl_value_object_data(v, &writer_class);
    if (!fo)
        fo = tl_value_object_data(v, &random_class);
    return fo;
}

static void file_repr(const tl_value *obj, tl_buf *b)
{
    fileobj *fo = fileobj_of(obj);
    tl_value *s = tl_str(fo->name);
    tl_buf_printf(b, "<_io.%s name=", obj->u.obj.cls->name);
    tl_value_repr_bounded(s, b, 300);
    tl_value_release(s);
    if (!fo->binary)
        tl_buf_printf(b, " mode='%s' encoding='UTF-8'", fo->mode);
    tl_buf_putc(b, '>');
}

static int check_open(fileobj *fo, tl_error *err)
{
    if (fo->closed)
        return tl_error_set(err, TL_ERR_VALUE, "I/O operation on closed file.");
    return 0;
}

static int check_text(fileobj *fo, tl_error *err)
{
    if (fo->f->payload)
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab keeps the files torch.save and h5py write as objects: "
                            "read them back with torch.load or h5py.File, not open()");
    if (fo->binary)
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab has no bytes type: binary files are for torch.save and "
                            "torch.load");
    return 0;
}

static tl_value *f_write(tl_value *self, const tl_args *a, tl_error *err)
{
    fileobj *fo = fileobj_of(self);
    if (tl_args_check(a, "write", 1, NULL, "(str)", err) < 0 || check_open(fo, err) < 0)
        return NULL;
    if (a->npos != 1) {
        tl_error_set(err, TL_ERR_TYPE, "write() takes exactly one argument (%zu given)",
                     a->npos);
        return NULL;
    }
    if (!fo->writable) {
        tl_error_set(err, TL_ERR_IOUNSUPPORTED, "not writable");
        return NULL;
    }
    if (check_text(fo, err) < 0)
        return NULL;
    const tl_value *s = a->pos[0];
    if (s->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "write() argument must be str, not %s",
                     tl_value_type_name(s));
        return NULL;
    }
    if (fo->append)
        fo->pos = fo->f->len;
    if (tl_memfile_write(fo->f, fo->pos, s->u.str.s, s->u.str.len, err) < 0)
        return NULL;
    fo->pos += s->u.str.len;
    /* Python counts characters: the UTF-8 lead bytes */
    int64_t chars = 0;
    for (size_t i = 0; i < s->u.str.len; i++)
        chars += ((unsigned char)s->u.str.s[i] & 0xC0) != 0x80;
    return tl_int(chars);
}

static int readable(fileobj *fo, tl_error *err)
{
    if (check_open(fo, err) < 0)
        return -1;
    if (!fo->readable)
        return tl_error_set(err, TL_ERR_IOUNSUPPORTED, "not readable");
    return check_text(fo, err);
}

static tl_value *f_read(tl_value *self, const tl_args *a, tl_error *err)
{
    fileobj *fo = fileobj_of(self);
    static const char *const kw[] = {"size", NULL};
    if (tl_args_check(a, "read", 1, kw, "(size=-1)", err) < 0 || readable(fo, err) < 0)
        return NULL;
    int64_t n = -1;
    tl_value *v = tl_arg(a, 0, "size");
    if (v && v->kind != TL_V_NONE && tl_to_int(v, "size", &n, err) < 0)
        return NULL;
    size_t avail = fo->pos < fo->f->len ? fo->f->len - fo->pos : 0;
    size_t take = n < 0 || (uint64_t)n > avail ? avail : (size_t)n;
    tl_value *r = tl_strn(take ? (const char *)fo->f->data + fo->pos : "", take);
    fo->pos += take;
    return r;
}

/* the next line (with its newline) from pos, or "" at the end */
static tl_value *next_line(fileobj *fo)
{
    size_t avail = fo->pos < fo->f->len ? fo->f->len - fo->pos : 0;
    if (!avail)
        return tl_str("");
    const char *p = (const char *)fo->f->data + fo->pos;
    const char *nl = memchr(p, '\n', avail);
    size_t take = nl ? (size_t)(nl - p) + 1 : avail;
    fo->pos += take;
    return tl_strn(p, take);
}

static tl_value *f_readline(tl_value *self, const tl_args *a, tl_error *err)
{
    fileobj *fo = fileobj_of(self);
    if (tl_args_check(a, "readline", 0, NULL, "()", err) < 0 || readable(fo, err) < 0)
        return NULL;
    return next_line(fo);
}

static tl_value *lines_of(fileobj *fo, tl_error *err)
{
    if (readable(fo, err) < 0)
        return NULL;
    tl_value *l = tl_list_new(0);
    for (;;) {
        tl_value *s = next_line(fo);
        if (!s->u.str.len) {
            tl_value_release(s);
            return l;
        }
        tl_list_append(l, s);
    }
}

static tl_value *f_readlines(tl_value *self, const tl_args *a, tl_error *err)
{
    if (tl_args_check(a, "readlines", 0, NULL, "()", err) < 0)
        return NULL;
    return lines_of(fileobj_of(self), err);
}

static tl_value *file_iter(tl_value *obj, tl_error *err)
{
    return lines_of(fileobj_of(obj), err);
}

static tl_value *f_close(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    (void)err;
    fileobj_of(self)->closed = true;
    return tl_none();
}

static tl_value *f_tell(tl_value *self, const tl_args *a, tl_error *err)
{
    fileobj *fo = fileobj_of(self);
    if (tl_args_check(a, "tell", 0, NULL, "()", err) < 0 || check_open(fo, err) < 0)
        return NULL;
    return tl_int((int64_t)fo->pos);
}

static tl_value *f_seek(tl_value *self, const tl_args *a, tl_error *err)
{
    fileobj *fo = fileobj_of(self);
    int64_t off = 0, whence = 0;
    if (tl_args_check(a, "seek", 2, NULL, "(offset, whence=0)", err) < 0 ||
        check_open(fo, err) < 0)
        return NULL;
    if (a->npos < 1 || tl_to_int(a->pos[0], "offset", &off, err) < 0 ||
        (a->npos > 1 && tl_to_int(a->pos[1], "whence", &whence, err) < 0)) {
        if (err->kind == TL_OK)
            tl_error_set(err, TL_ERR_TYPE, "seek expected at least 1 argument, got 0");
        return NULL;
    }
    int64_t base = whence == 0 ? 0 : whence == 1 ? (int64_t)fo->pos : (int64_t)fo->f->len;
    if (whence < 0 || whence > 2) {
        tl_error_set(err, TL_ERR_VALUE, "invalid whence (%" PRId64 ", should be 0, 1 or 2)",
                     whence);
        return NULL;
    }
    if (whence && off) {
        tl_error_set(err, TL_ERR_OS, "can't do nonzero cur-relative seeks");
        return NULL;
    }
    if (base + off < 0) {
        tl_error_set(err, TL_ERR_VALUE, "negative seek position %" PRId64, base + off);
        return NULL;
    }
    fo->pos = (size_t)(base + off);
    return tl_int(base + off);
}

static tl_value *f_enter(tl_value *self, const tl_args *a, tl_error *err)
{
    if (check_open(fileobj_of(self), err) < 0)
        return NULL;
    (void)a;
    return tl_value_retain(self);
}

static tl_value *f_exit(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    (void)err;
    fileobj_of(self)->closed = true;
    return tl_bool(false);
}

static tl_value *file_attr(tl_value *obj, const char *name, tl_error *err)
{
    static const struct {
        const char *name;
        tl_cfunc fn;
    } m[] = {{"write", f_write},         {"read", f_read},   {"readline", f_readline},
             {"readlines", f_readlines}, {"close", f_close}, {"tell", f_tell},
             {"seek", f_seek},           {"__enter__", f_enter}, {"__exit__", f_exit}};
    fileobj *fo = fileobj_of(obj);
    for (size_t i = 0; i < TL_ARRAY_LEN(m); i++)
        if (strcmp(m[i].name, name) == 0)
            return tl_value_func(m[i].name, m[i].fn, obj);
    if (strcmp(name, "closed") == 0)
        return tl_bool(fo->closed);
    if (strcmp(name, "name") == 0)
        return tl_str(fo->name);
    if (strcmp(name, "mode") == 0)
        return tl_str(fo->binary ? (fo->readable && fo->writable ? "rb+"
                                    : fo->writable ? (fo->append ? "ab" : "wb") : "rb")
                                 : fo->mode);
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'_io.%s' object has no attribute '%s'",
                 obj->u.obj.cls->name, name);
    return NULL;
}

/* the file behind an open file object (borrowed), for torch.save(obj, f) */
tl_memfile *tl_memfs_file_of(const tl_value *v, bool *writable)
{
    fileobj *fo = fileobj_of(v);
    if (!fo || fo->closed)
        return NULL;
    *writable = fo->writable;
    return fo->f;
}

const char *tl_memfs_file_name(const tl_value *v)
{
    fileobj *fo = fileobj_of(v);
    return fo ? fo->name : NULL;
}

tl_value *tl_memfs_open_builtin(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kw[] = {"file", "mode", "buffering", "encoding", "errors",
                                     "newline", NULL};
    if (tl_args_check(a, "open", 6, kw, "(file, mode='r', encoding=None)", err) < 0)
        return NULL;
    const char *path;
    tl_value *pv = tl_arg(a, 0, "file");
    if (!pv) {
        tl_error_set(err, TL_ERR_TYPE, "open() missing required argument 'file' (pos 1)");
        return NULL;
    }
    if (pv->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "expected str, bytes or os.PathLike object, not %s",
                     tl_value_type_name(pv));
        return NULL;
    }
    if (tl_memfs_path_arg(pv, "open", &path, err) < 0)
        return NULL;
    const char *mode = "r";
    tl_value *mv = tl_arg(a, 1, "mode");
    if (mv) {
        if (mv->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "open() argument 'mode' must be str, not %s",
                         tl_value_type_name(mv));
            return NULL;
        }
        mode = mv->u.str.s;
    }
    /* Python's mode check: one of rwax, at most one + b t, no repeats */
    int rwax = 0, plus = 0, b = 0, t = 0;
    char kind = 0;
    bool bad = strlen(mode) > 7;
    for (const char *p = mode; *p && !bad; p++) {
        switch (*p) {
        case 'r': case 'w': case 'a': case 'x':
            rwax++;
            kind = *p;
            break;
        case '+': plus++; break;
        case 'b': b++; break;
        case 't': t++; break;
        default: bad = true;
        }
    }
    if (bad || plus > 1 || b > 1 || t > 1) {
        tl_error_set(err, TL_ERR_VALUE, "invalid mode: '%s'", mode);
        return NULL;
    }
    if (b && t) {
        tl_error_set(err, TL_ERR_VALUE, "can't have text and binary mode at once");
        return NULL;
    }
    if (rwax != 1) {
        tl_error_set(err, TL_ERR_VALUE, "must have exactly one of create/read/write/append mode");
        return NULL;
    }
    tl_memfile *f;
    if (kind == 'r') {
        if (!(f = tl_memfs_open(path, err)))
            return NULL;
    } else if (kind == 'a' && tl_memfs_exists(path)) {
        f = tl_memfs_open(path, err);
    } else {
        if (kind == 'x' && tl_memfs_exists(path)) {
            tl_value *s = tl_str(path);
            tl_buf q = {0};
            tl_value_repr_bounded(s, &q, 300);
            tl_value_release(s);
            tl_error_set(err, TL_ERR_OS, "[Errno 17] File exists: %s", tl_buf_str(&q));
            tl_buf_free(&q);
            return NULL;
        }
        if (!(f = tl_memfs_create(path, err)))
            return NULL;
    }
    fileobj *fo = tl_xcalloc(1, sizeof *fo);
    fo->f = f;
    snprintf(fo->mode, sizeof fo->mode, "%s", mode);
    fo->readable = kind == 'r' || plus;
    fo->writable = kind != 'r' || plus;
    fo->append = kind == 'a';
    fo->binary = b != 0;
    fo->pos = fo->append ? f->len : 0;
    fo->name = tl_xstrdup(path);
    const tl_objclass *cls = !b ? &text_class
                             : plus ? &random_class
                             : kind == 'r' ? &reader_class : &writer_class;
    return tl_value_object(cls, fo);
}

/* ---------------------------------------------------------------------- */
/* os, os.path */

static tl_value *one_path(const tl_args *a, const char *fname, const char **path,
                          tl_error *err)
{
    if (a->nkw || a->npos != 1) {
        tl_error_set(err, TL_ERR_TYPE, "%s() takes exactly one argument (%zu given)", fname,
                     a->npos + a->nkw);
        return NULL;
    }
    if (tl_memfs_path_arg(a->pos[0], fname, path, err) < 0)
        return NULL;
    return tl_none();
}

static tl_value *os_exists(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    const char *p;
    if (a->npos == 1 && a->pos[0]->kind != TL_V_STR && !a->nkw)
        return tl_bool(false); /* Python: exists(3) is False */
    if (!one_path(a, "exists", &p, err))
        return NULL;
    return tl_bool(tl_memfs_exists(p));
}

static tl_value *os_remove(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    const char *p;
    if (!one_path(a, "remove", &p, err))
        return NULL;
    if (tl_memfs_remove(p, err) < 0)
        return NULL;
    return tl_none();
}

static tl_value *os_getsize(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    const char *p;
    if (!one_path(a, "getsize", &p, err))
        return NULL;
    tl_memfile *f = tl_memfs_open(p, err);
    if (!f)
        return NULL;
    tl_value *r = tl_int((int64_t)f->len);
    tl_memfile_release(f);
    return r;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static tl_value *os_listdir(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->nkw || a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "listdir() takes at most 1 argument");
        return NULL;
    }
    const char *dir = ".";
    if (a->npos && tl_memfs_path_arg(a->pos[0], "listdir", &dir, err) < 0)
        return NULL;
    if (strcmp(dir, ".") != 0 && strcmp(dir, "./") != 0 && strcmp(dir, "") != 0) {
        not_found(dir, err);
        return NULL;
    }
    /* the files of the current folder (names without a '/'), sorted:
     * Python's order is the file system's, sorted is a stable answer */
    const char **names = tl_xmalloc((fs.n ? fs.n : 1) * sizeof *names);
    size_t k = 0;
    for (size_t i = 0; i < fs.n; i++)
        if (!strchr(fs.files[i]->path, '/'))
            names[k++] = fs.files[i]->path;
    qsort(names, k, sizeof *names, cmp_str);
    tl_value *l = tl_list_new(0);
    for (size_t i = 0; i < k; i++)
        tl_list_append(l, tl_str(names[i]));
    free(names);
    return l;
}

static tl_value *os_join(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->nkw || !a->npos) {
        tl_error_set(err, TL_ERR_TYPE, "join() missing 1 required positional argument: 'a'");
        return NULL;
    }
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    for (size_t i = 0; i < a->npos; i++) {
        const char *s;
        if (tl_memfs_path_arg(a->pos[i], "join", &s, err) < 0) {
            tl_buf_free(&b);
            return NULL;
        }
        if (s[0] == '/')
            b.len = 0;
        else if (b.len && b.data[b.len - 1] != '/')
            tl_buf_putc(&b, '/');
        tl_buf_puts(&b, s);
    }
    tl_value *r = tl_strn(b.data, b.len);
    tl_buf_free(&b);
    return r;
}

tl_value *tl_memfs_module_attr(const char *module, const char *name, tl_error *err)
{
    if (strcmp(module, "os") == 0) {
        if (strcmp(name, "path") == 0)
            return tl_value_module("os.path");
        if (strcmp(name, "remove") == 0 || strcmp(name, "unlink") == 0)
            return tl_value_func("remove", os_remove, NULL);
        if (strcmp(name, "listdir") == 0)
            return tl_value_func("listdir", os_listdir, NULL);
        if (strcmp(name, "sep") == 0)
            return tl_str("/");
    } else {
        if (strcmp(name, "exists") == 0 || strcmp(name, "isfile") == 0)
            return tl_value_func("exists", os_exists, NULL);
        if (strcmp(name, "getsize") == 0)
            return tl_value_func("getsize", os_getsize, NULL);
        if (strcmp(name, "join") == 0)
            return tl_value_func("join", os_join, NULL);
    }
    tl_error_set(err, TL_ERR_UNSUPPORTED,
                 "tlab does not support %s.%s (files live in memory for one run: "
                 "os.path.exists, os.path.getsize, os.path.join, os.remove, os.listdir)",
                 module, name);
    return NULL;
}
