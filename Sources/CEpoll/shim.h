/*
 * CEpoll: Linux's <sys/epoll.h> for Swift (the Glibc module does not export it). Only
 * ember-bench imports it: its fan-out readers wait on 1,000 sockets at once (ReadySockets).
 */
#ifndef EMBER_CEPOLL_SHIM_H
#define EMBER_CEPOLL_SHIM_H

#include <sys/epoll.h>

#endif /* EMBER_CEPOLL_SHIM_H */
