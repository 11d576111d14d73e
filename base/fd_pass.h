/*
 * fd_pass: one byte and one file descriptor over a unix stream socket
 * (SCM_RIGHTS), how airlockd hands a runner the backend socket it
 * connected (proxy/job/relay.h, base/frame.h FRAME_RELAY_HANDED).
 */
#ifndef AIRLOCK_BASE_FD_PASS_H
#define AIRLOCK_BASE_FD_PASS_H

/*
 * Sends byte with a copy of fd over sock, without blocking or SIGPIPE: 0,
 * or -1 with errno. fd stays the caller's.
 */
int fd_pass_send(int sock, char byte, int fd);

/*
 * Takes one message from sock (flags as recv's; MSG_CMSG_CLOEXEC is
 * added): the descriptor it carried (the caller's to close) with its byte
 * in *byte, or -1 when there was none: EOF (errno 0), an error (errno), a
 * message of no descriptor, of more than one or of another kind (errno
 * EBADMSG; whatever descriptors came are closed).
 */
int fd_pass_recv(int sock, char *byte, int flags);

#endif
