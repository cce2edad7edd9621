// Build information for `--version`. `Tools/package/build` sets the Debian package version and the commit in the
// environment, and Package.swift makes them defines of this target alone (BLUEDOT_VERSION, BLUEDOT_COMMIT): SwiftPM
// has no other way to hand a value to a build, and Swift's own `-D` takes names only. A developer's build has neither.
#include "bluedot_build_info.h"

#ifndef BLUEDOT_VERSION
#define BLUEDOT_VERSION ""
#endif
#ifndef BLUEDOT_COMMIT
#define BLUEDOT_COMMIT ""
#endif

const char *bluedot_build_version(void) { return BLUEDOT_VERSION; }
const char *bluedot_build_commit(void) { return BLUEDOT_COMMIT; }
