/* junit.h - JUnit XML (the Jenkins junit-10 XSD shape, SPEC 2). */
#ifndef TL_JUNIT_H
#define TL_JUNIT_H

#include <stddef.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One <testsuite> per report, in one <testsuites>. Caller frees. */
char *tl_junit_render(const tl_report *rs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
