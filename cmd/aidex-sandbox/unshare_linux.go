//go:build linux && cgo

package main

/*
#cgo CFLAGS: -O2 -Wall
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/capability.h>

extern char **environ;

// aidex looks for this section in the helper binary (internal/sandbox:
// helperUnshares) to know that the helper creates its namespaces itself.
__attribute__((used, section(".aidex.unshare"))) static const char aidex_unshare_marker[] = "aidex-sandbox: unshare v1";

// aidex_unshared is 1 in the helper process the C part forked into the
// new namespaces (the Go runtime then starts in it).
int aidex_unshared;

static void aidex_fail(const char *what) {
	char buf[256];
	int n = snprintf(buf, sizeof buf, "aidex-sandbox: setup: %s: %s\n", what, strerror(errno));
	if (n > 0) {
		ssize_t w = write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
		(void)w;
	}
	_exit(125);
}

static int aidex_write_file(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(s);
	ssize_t n = write(fd, s, len);
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)len ? 0 : -1;
}

static volatile pid_t aidex_child;

static void aidex_forward(int sig) {
	int e = errno;
	if (aidex_child > 0)
		kill(aidex_child, sig);
	errno = e;
}

// aidex_keep_caps leaves a non-root helper the capabilities aidex's clone
// gave it as ambient ones: CAP_SYS_ADMIN (mounts), CAP_NET_ADMIN (the
// loopback), CAP_SETPCAP (dropping the bounding set).
static void aidex_keep_caps(void) {
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	unsigned keep[] = {CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_SETPCAP};
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		data[keep[i] / 32].permitted |= 1u << (keep[i] % 32);
		data[keep[i] / 32].effective |= 1u << (keep[i] % 32);
	}
	if (syscall(SYS_capset, &hdr, data) != 0)
		aidex_fail("capset");
}

static const int aidex_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// The attach mode: aidex hands the command to a spare helper set up
// ahead of it (internal/sandbox/helper/spare_linux.go has the wire
// format). aidex_conn is the connection to it; a signal that comes before
// the spare answers is kept in aidex_pending, later ones are passed on.
static int aidex_conn = -1;
static volatile sig_atomic_t aidex_attached;
static volatile sig_atomic_t aidex_pending;
static volatile sig_atomic_t aidex_pending_mask; // every one that came (all < 32)

static void aidex_relay(int sig) {
	int e = errno;
	if (aidex_attached) {
		unsigned char b = (unsigned char)sig;
		ssize_t w = send(aidex_conn, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
	} else {
		if (aidex_pending == 0)
			aidex_pending = sig;
		aidex_pending_mask |= 1 << sig;
	}
	errno = e;
}

static int aidex_read_full(int fd, void *p, size_t n) {
	char *b = p;
	while (n > 0) {
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

// aidex_cmdline returns this process's argv as /proc/self/cmdline has it
// (each argument ending in NUL; constructors get no argv from every C
// library), with *len its length and *argc the number of arguments, or
// NULL.
static char *aidex_cmdline(size_t *len, uint32_t *argc) {
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		if (n == cap) {
			char *b = realloc(buf, cap * 2);
			if (b == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
		} else if (r == 0)
			break;
		else
			n += (size_t)r;
	}
	close(fd);
	if (buf == NULL || n == 0 || buf[n - 1] != 0) {
		free(buf);
		return NULL;
	}
	*argc = 0;
	for (size_t i = 0; i < n; i++)
		*argc += buf[i] == 0;
	*len = n;
	return buf;
}

// aidex_request builds the request: the three lengths, then argv, the
// environment and the working directory, each ending in NUL. It returns
// NULL when the working directory or argv is unknown or memory is short.
static char *aidex_request(size_t *len) {
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof cwd) == NULL)
		return NULL;
	size_t argn = 0;
	uint32_t argc = 0, envc = 0;
	char *args = aidex_cmdline(&argn, &argc);
	if (args == NULL)
		return NULL;
	size_t n = argn + strlen(cwd) + 1;
	for (char **e = environ; *e != NULL; e++, envc++)
		n += strlen(*e) + 1;
	char *buf = malloc(12 + n);
	if (buf == NULL) {
		free(args);
		return NULL;
	}
	// Little-endian: the byte order of every platform aidex builds its C
	// part for (amd64, arm64).
	uint32_t head[3] = {(uint32_t)n, argc, envc};
	memcpy(buf, head, sizeof head);
	memcpy(buf + 12, args, argn);
	free(args);
	char *p = buf + 12 + argn;
	for (char **e = environ; *e != NULL; e++)
		p = stpcpy(p, *e) + 1;
	stpcpy(p, cwd);
	*len = 12 + n;
	return buf;
}

// aidex_send sends the request with descriptors 0, 1, 2 and pidfd (none
// when pidfd < 0: the spare then refuses the command).
static int aidex_send(int fd, const char *buf, size_t len, int pidfd) {
	int fds[4] = {0, 1, 2, pidfd};
	size_t nfd = pidfd >= 0 ? 4 : 3;
	union {
		char buf[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec iov = {(void *)buf, len};
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl.buf;
	m.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
	ssize_t w;
	while ((w = sendmsg(fd, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (w <= 0)
		return -1;
	for (size_t off = (size_t)w; off < len;) {
		w = send(fd, buf + off, len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

#define AIDEX_NSIG (sizeof aidex_signals / sizeof aidex_signals[0])

// aidex_attach hands the command to the spare on conn. The spare answers
// 'A' once it has checked the request and its mounts and takes the
// command (it then reports a failure to start it as the helper would: a
// message on the command's stderr and the status); anything else, before
// that answer, means it did not take it, and aidex_attach returns: the
// caller then sets the sandbox up itself. After 'A' it waits for the
// status and exits with it once the spare and every process of the
// command have ended (the connection's end: the spare's first process
// holds it until then). A catchable signal that comes before the answer
// ends this process (128+N) when the command was not taken, and is passed
// on when it was; later ones are passed on as they come.
static void aidex_attach(int conn) {
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	size_t len = 0;
	char *buf = aidex_request(&len);
	if (buf == NULL) {
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	aidex_conn = conn;
	struct sigaction sa, old[AIDEX_NSIG];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = aidex_relay;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < AIDEX_NSIG; i++)
		sigaction(aidex_signals[i], &sa, &old[i]);
	char reply = 0;
	int sent = aidex_send(conn, buf, len, pidfd);
	free(buf);
	if (pidfd >= 0)
		close(pidfd);
	sigset_t all, prev;
	sigfillset(&all);
	if (sent != 0 || aidex_read_full(conn, &reply, 1) != 0 || reply != 'A') {
		sigprocmask(SIG_BLOCK, &all, &prev);
		if (aidex_pending != 0)
			_exit(128 + aidex_pending);
		for (size_t i = 0; i < AIDEX_NSIG; i++)
			sigaction(aidex_signals[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &prev, NULL);
		return;
	}
	sigprocmask(SIG_BLOCK, &all, &prev);
	aidex_attached = 1;
	for (int sig = 1; sig < 32; sig++)
		if (aidex_pending_mask & (1 << sig))
			aidex_relay(sig);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	int32_t st;
	if (aidex_read_full(conn, &st, sizeof st) != 0) {
		errno = EPIPE;
		aidex_fail("the spare helper ended before its command");
	}
	char rest[64];
	for (;;) {
		ssize_t r = read(conn, rest, sizeof rest);
		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	_exit(st);
}

// aidex_unshare runs before the Go runtime starts, while the process has
// one thread: when aidex asks for it (AIDEX_SANDBOX_UNSHARE=net-off or
// net-on) it creates the new user, mount, PID and IPC namespaces (and a
// network namespace for net-off), maps the caller's uid and gid to
// themselves, and forks once: the child, PID 1 of the new PID namespace,
// returns into the Go runtime and the helper's main; this process waits
// for it, forwards the catchable signals aidex may send it, and exits with
// its status (128+N when signal N ended it). Before that, when aidex gives
// it a spare's connection (AIDEX_SANDBOX_ATTACH), it hands the command to
// the spare (aidex_attach) and goes on as above only when the spare does
// not take it.
__attribute__((constructor)) static void aidex_unshare(void) {
	const char *conn = getenv("AIDEX_SANDBOX_ATTACH");
	if (conn != NULL) {
		int fd = atoi(conn);
		unsetenv("AIDEX_SANDBOX_ATTACH");
		// Not for a command that leads a session of its own (a
		// pseudo-terminal aidex made for it): the helper must lead it.
		if (fd > 2 && getsid(0) != getpid())
			aidex_attach(fd);
		if (fd > 2)
			close(fd);
	}
	const char *mode = getenv("AIDEX_SANDBOX_UNSHARE");
	if (mode == NULL)
		return;
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC;
	if (strcmp(mode, "net-off") == 0)
		flags |= CLONE_NEWNET;
	else if (strcmp(mode, "net-on") != 0) {
		errno = EINVAL;
		aidex_fail("AIDEX_SANDBOX_UNSHARE");
	}
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(flags) != 0)
		aidex_fail("unshare");
	char map[64];
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (aidex_write_file("/proc/self/uid_map", map) != 0)
		aidex_fail("write uid_map");
	if (aidex_write_file("/proc/self/setgroups", "deny") != 0)
		aidex_fail("write setgroups");
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (aidex_write_file("/proc/self/gid_map", map) != 0)
		aidex_fail("write gid_map");
	if (uid != 0)
		aidex_keep_caps();
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int alive[2];
	if (pipe2(alive, O_CLOEXEC) != 0)
		aidex_fail("pipe");
	pid_t pid = fork();
	if (pid < 0)
		aidex_fail("fork");
	if (pid == 0) {
		// The helper dies with this process (which dies with aidex);
		// the pipe tells whether it died before the prctl.
		close(alive[1]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
			aidex_fail("prctl");
		struct pollfd p = {alive[0], POLLIN, 0};
		if (poll(&p, 1, 0) != 0)
			_exit(125);
		close(alive[0]);
		unsetenv("AIDEX_SANDBOX_UNSHARE");
		aidex_unshared = 1;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	close(alive[0]);
	aidex_child = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = aidex_forward;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof aidex_signals / sizeof aidex_signals[0]; i++)
		sigaction(aidex_signals[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			aidex_fail("wait");
	if (WIFSIGNALED(st))
		_exit(128 + WTERMSIG(st));
	_exit(WEXITSTATUS(st));
}
*/
import "C"

// unshared reports whether the C part above created the sandbox's
// namespaces before the Go runtime started (aidex asked for it with
// helper.UnshareEnv).
func unshared() bool { return C.aidex_unshared != 0 }
