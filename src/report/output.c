/* output.c - the atomic output writer of SPEC 2 (-o FILE): a temp file in
 * the target's directory, then rename; stdout for NULL or "-". On failure
 * no file is left behind. A non-regular target (/dev/null, a FIFO) is
 * written in place; a symlink's target file is replaced, not the link.
 * Standard output closed by its reader (EPIPE, `tlab grade | head`) is a
 * normal end: what was written is what the reader took.
 */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"
#include "util.h"


/* Write all of data to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int tl_output_write(const char *path, const char *data, size_t len, char *errbuf,
                    size_t errcap)
{
    if (!path || !strcmp(path, "-")) {
        if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0) {
            /* a reader that closed the pipe (`| head`) has all it wanted:
             * not an error (SIGPIPE is ignored, main.c) */
            if (errno == EPIPE) {
                clearerr(stdout);
                return 0;
            }
            snprintf(errbuf, errcap, "cannot write to standard output: %s", strerror(errno));
            /* reported here, once: the caller's final flush check must not
             * report it again */
            clearerr(stdout);
            return -1;
        }
        return 0;
    }
    /* An existing target that is not a regular file (/dev/null, a FIFO, a
     * terminal) is written in place: renaming over it would replace the
     * device node. A directory fails here with a clear message. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        int fd = S_ISDIR(st.st_mode) ? -1 : open(path, O_WRONLY | O_TRUNC);
        if (fd < 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", path,
                     strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
            return -1;
        }
        int rc = write_all(fd, data, len);
        int saved = errno;
        if (close(fd) != 0 && rc == 0) {
            rc = -1;
            saved = errno;
        }
        if (rc < 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(saved));
            return -1;
        }
        return 0;
    }
    /* a symlink to a file: replace the file it points to, not the link */
    char *real = NULL;
    struct stat lst;
#if TL_HAVE_FILE_MODES
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        real = realpath(path, NULL);
#else
    (void)lst; /* no realpath (wasm32-wasi): a link is replaced itself */
#endif
    const char *final = real ? real : path;
    char *dup = tl_xstrdup(final);
    char *dir = dirname(dup);
    tl_buf tmp = {0};
    tl_buf_printf(&tmp, "%s/.tlab-out-XXXXXX", dir);
    free(dup);
    char *tname = tl_buf_steal(&tmp);
    int fd = tl_tempfile_make(tname); /* removed if SIGINT/SIGTERM stop us */
    if (fd < 0) {
        snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(errno));
        free(tname);
        free(real);
        return -1;
    }
#if TL_HAVE_FILE_MODES
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
#endif
    int rc = write_all(fd, data, len);
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc < 0 || tl_tempfile_rename(tname, final) != 0) {
        if (rc == 0)
            saved = errno;
        tl_tempfile_discard(tname);
        snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(saved));
        free(tname);
        free(real);
        return -1;
    }
    free(tname);
    free(real);
    return 0;
}

