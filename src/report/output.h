/* output.h - writing a rendered document (SPEC 2: -o FILE is atomic). */
#ifndef TL_OUTPUT_H
#define TL_OUTPUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write data to path atomically (temp file in the same directory, then
 * rename), or to stdout when path is NULL or "-". 0, or -1 with a message
 * in errbuf; on failure no file is left behind. */
int tl_output_write(const char *path, const char *data, size_t len, char *errbuf,
                    size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
