#ifndef BLUEDOT_BUILD_INFO_H
#define BLUEDOT_BUILD_INFO_H

/// The package version the binary was built as ("" in a developer's build).
const char *bluedot_build_version(void);
/// The commit the binary was built from ("" when the build was not told).
const char *bluedot_build_commit(void);

#endif
