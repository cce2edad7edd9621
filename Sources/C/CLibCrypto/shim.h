// OpenSSL's libcrypto (Debian's libssl-dev), as Swift sees it: only the EVP cipher interface, for AES-128 in the
// `ah` function of resolvable private addresses. Only the Devices module imports this module. libmosquitto links
// the same libcrypto for mqtts, so the daemon maps it once whichever module loads it first.
#ifndef BLUEDOT_CLIBCRYPTO_SHIM_H
#define BLUEDOT_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
