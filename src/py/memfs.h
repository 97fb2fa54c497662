/* memfs.h - the run's in-memory file system (SPEC 6, 7): what `open`,
 * `os.path`, `torch.save` and `h5py.File` read and write. A sheet never
 * reaches a real file: every path names an entry of this table, which
 * starts empty (so `open('/etc/passwd')` is FileNotFoundError) and is
 * dropped when the run ends.
 *
 * Ownership: one file system per thread and run: tl_memfs_enter makes it
 * (or joins the one an outer interpreter made), tl_memfs_leave drops it
 * when the last one leaves. Files are refcounted: the table holds one
 * reference, each open file object another, so a removed file that is
 * still open stays readable (POSIX's unlink) and is freed with its last
 * reference.
 *
 * Memory: every byte a file holds (its buffer's capacity, and the payload
 * size a torch.save / h5py file declares) is charged to the run's memory
 * ledger (storage.h tl_alloc_objects_add) and refused past --max-bytes
 * with a LimitError, so a sheet writing in a loop stops with the located
 * limit error, never an OOM.
 */
#ifndef TL_MEMFS_H
#define TL_MEMFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_memfile {
    int refcount;
    char *path;         /* normalised path (owned) */
    unsigned char *data;
    size_t len, cap;
    /* structured content (torch.save, h5py): payload is owned and freed
     * with drop; the file's bytes are then a model of the real format and
     * only len (os.path.getsize) is read. payload_tag says whose it is. */
    const char *payload_tag;
    void *payload;
    void (*payload_drop)(void *);
    size_t charged;     /* bytes charged to the ledger */
} tl_memfile;

/* Join (or make) this thread's file system; leave drops it at the last. */
void tl_memfs_enter(void);
void tl_memfs_leave(void);
/* How many files the file system now holds (a setup snapshot copies no
 * files: one that wrote any is rerun, lang/interp.c). */
size_t tl_memfs_files(void);

/* The file at path (a new reference), or NULL with FileNotFoundError
 * "[Errno 2] No such file or directory: 'PATH'". */
tl_memfile *tl_memfs_open(const char *path, tl_error *err);
/* A new empty file at path, replacing what was there (a new reference);
 * NULL with an error when no file system is entered. */
tl_memfile *tl_memfs_create(const char *path, tl_error *err);
void tl_memfile_release(tl_memfile *f);
bool tl_memfs_exists(const char *path);
int tl_memfs_remove(const char *path, tl_error *err);

/* Write n bytes at offset off (growing the file), charging the ledger:
 * -1 with a LimitError past --max-bytes. */
int tl_memfile_write(tl_memfile *f, size_t off, const void *p, size_t n, tl_error *err);
/* Drop the bytes and payload (truncate to 0). */
void tl_memfile_truncate(tl_memfile *f);
/* Set structured content with a modelled size of `size` bytes (charged,
 * -1 with a LimitError past --max-bytes; the file is then unchanged). */
int tl_memfile_set_payload(tl_memfile *f, const char *tag, void *payload,
                           void (*drop)(void *), size_t size, tl_error *err);
/* Charge n more bytes (payload growth), or give back (negative). */
int tl_memfile_charge(tl_memfile *f, int64_t n, tl_error *err);

/* Python objects: open(file, mode='r') and the `os` module's attributes
 * (module names "os" and "os.path"). */
tl_value *tl_memfs_open_builtin(tl_value *self, const struct tl_args *a, tl_error *err);
tl_value *tl_memfs_module_attr(const char *module, const char *name, tl_error *err);

/* The file behind an open file object v (borrowed; *writable says
 * whether it was opened for writing), NULL when v is none or closed. */
tl_memfile *tl_memfs_file_of(const tl_value *v, bool *writable);

/* The name an open() file object was opened with (borrowed), else NULL. */
const char *tl_memfs_file_name(const tl_value *v);

/* A path argument: a str, else TypeError "NAME: path should be string,
 * bytes or os.PathLike, not TYPE" (borrowed out). */
int tl_memfs_path_arg(const tl_value *v, const char *fname, const char **out, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
