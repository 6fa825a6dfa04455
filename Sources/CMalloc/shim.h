/*
 * CMalloc: glibc's <malloc.h> for Swift (the Glibc module does not export malloc_trim).
 * EmberStorage's FreedMemory hands memory freed after a large load back to the system.
 */
#ifndef EMBER_CMALLOC_SHIM_H
#define EMBER_CMALLOC_SHIM_H

#include <malloc.h>

#endif /* EMBER_CMALLOC_SHIM_H */
