// Headers the Glibc module does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// accept4(2) is a GNU extension; the Glibc module is built without _GNU_SOURCE, so declare it here.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
