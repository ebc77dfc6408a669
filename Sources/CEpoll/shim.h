// Headers the Glibc module does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
