// Build information for `--version`. `Tools/dev package` passes the Debian package version and the commit as C
// defines (`-Xcc -DBLUEDOT_VERSION="..." -Xcc -DBLUEDOT_COMMIT="..."`): SwiftPM has no other way to hand a value
// to a build, and Swift's own `-D` takes names only. A developer's `swift build` sets neither.
#include "bluedot_build_info.h"

#ifndef BLUEDOT_VERSION
#define BLUEDOT_VERSION ""
#endif
#ifndef BLUEDOT_COMMIT
#define BLUEDOT_COMMIT ""
#endif

const char *bluedot_build_version(void) { return BLUEDOT_VERSION; }
const char *bluedot_build_commit(void) { return BLUEDOT_COMMIT; }
