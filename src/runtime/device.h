/* device.h - devices: what a tensor lives on, its PyTorch name, and the one
 * parser of device strings ("cpu", "cuda", "cuda:1").
 *
 * A device is a value {kind, index}; nothing here owns memory. Which
 * backend runs a device is decided by backend.h's tl_backend_for.
 */
#ifndef TL_DEVICE_H
#define TL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_devkind { TL_DEV_CPU = 0, TL_DEV_CUDA = 1, TL_NDEVKINDS } tl_devkind;

typedef struct tl_device {
    tl_devkind kind;
    int index; /* CUDA ordinal; always 0 for the CPU */
} tl_device;

/* PyTorch's name of a device in messages: "cpu", "cuda:0". */
void tl_device_str(tl_device d, char *buf, size_t cap);
/* Same device? */
bool tl_device_same(tl_device a, tl_device b);
/* Parse a device string as torch.device(s) does: "cpu", "cpu:N", "cuda",
 * "cuda:N" (N digits, no sign, no leading zero; "cpu:N" is the CPU). A known PyTorch device
 * type that tlab does not model is TL_ERR_UNSUPPORTED; anything else is
 * PyTorch's RuntimeError ("Invalid device string: 'cuda:x'", "Expected
 * one of cpu, cuda, ... device type at start of device string: foo"). */
int tl_device_parse(const char *s, tl_device *out, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
