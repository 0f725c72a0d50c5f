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
#include <linux/capability.h>

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

// aidex_unshare runs before the Go runtime starts, while the process has
// one thread: when aidex asks for it (AIDEX_SANDBOX_UNSHARE=net-off or
// net-on) it creates the new user, mount, PID and IPC namespaces (and a
// network namespace for net-off), maps the caller's uid and gid to
// themselves, and forks once: the child, PID 1 of the new PID namespace,
// returns into the Go runtime and the helper's main; this process waits
// for it, forwards the catchable signals aidex may send it, and exits with
// its status (128+N when signal N ended it).
__attribute__((constructor)) static void aidex_unshare(void) {
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
