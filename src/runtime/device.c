/* device.c - device names and the one device-string parser.
 *
 * Every place that turns text into a device (factories' device=, .to(),
 * .cuda(), torch.device) comes here, so "cuda:01" is refused and "cpu:1"
 * accepted the same way everywhere, with torch 1.13's messages.
 */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_device_str(tl_device d, char *buf, size_t cap)
{
    if (d.kind == TL_DEV_CPU)
        snprintf(buf, cap, "cpu");
    else
        snprintf(buf, cap, "cuda:%d", d.index);
}

bool tl_device_same(tl_device a, tl_device b)
{
    return a.kind == b.kind && a.index == b.index;
}

static const char *known_device_types =
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, "
    "xla, lazy, vulkan, mps, meta, hpu, privateuseone";

int tl_device_parse(const char *s, tl_device *out, tl_error *err)
{
    size_t tlen = strcspn(s, ":");
    tl_devkind kind;
    if (tlen == 3 && strncmp(s, "cpu", 3) == 0) {
        kind = TL_DEV_CPU;
    } else if (tlen == 4 && strncmp(s, "cuda", 4) == 0) {
        kind = TL_DEV_CUDA;
    } else {
        /* a known PyTorch device type tlab does not model */
        const char *p = known_device_types;
        while (*p) {
            size_t n = strcspn(p, ",");
            if (n == tlen && strncmp(p, s, n) == 0)
                return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                    "device type '%.*s' is not supported by "
                                    "tlab (only cpu and cuda)",
                                    (int)n, s);
            p += n;
            while (*p == ',' || *p == ' ')
                p++;
        }
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Expected one of %s device type at start of "
                            "device string: %s",
                            known_device_types, s);
    }
    int index = 0;
    if (s[tlen] == ':') {
        const char *d = s + tlen + 1;
        if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 6 ||
            (d[0] == '0' && d[1]))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Invalid device string: '%s'", s);
        index = atoi(d);
    }
    out->kind = kind;
    out->index = kind == TL_DEV_CPU ? 0 : index; /* cpu:N runs on the CPU */
    return 0;
}
