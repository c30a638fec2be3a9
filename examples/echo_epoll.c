/* SPDX-License-Identifier: MIT */
/*
 * echo_epoll - an ordinary TCP echo server on epoll, and its client.
 *
 * Nothing in it knows about ufd.  Run under UFD_MODE=all, every descriptor
 * it creates (the listening socket, the epoll instance, each accepted
 * connection) is virtual, numbered at random from FD_UNSEQ_BASE (1 << 28)
 * up, and the server works the same: epoll, like poll, takes any number.
 *
 *   echo_epoll server N         listen on 127.0.0.1, an ephemeral port;
 *                               print the port and every descriptor made;
 *                               exit 0 once N connections have come and
 *                               gone, 1 after 10 s without an event
 *   echo_epoll client PORT C M  open C connections at once, send M
 *                               messages on each, check every echo; exit 0
 *                               if all are right, 1 if not
 *
 *   LD_PRELOAD=libufd.so UFD_MODE=all echo_epoll server 8 &   # or ufd-run -m all
 *   echo_epoll client PORT 8 20
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int server(int connections)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t addr_len = sizeof(addr);
	struct epoll_event event = { .events = EPOLLIN }, ready[16];
	int listener, epoll_fd, served = 0;

	listener = socket(AF_INET, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    listen(listener, 64) < 0 ||
	    getsockname(listener, (struct sockaddr *)&addr, &addr_len) < 0)
		die("server: listen on 127.0.0.1");
	epoll_fd = epoll_create1(0);
	event.data.fd = listener;
	if (epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event) < 0)
		die("server: epoll");
	printf("listening on 127.0.0.1 port %d: listener %d, epoll %d\n",
	       ntohs(addr.sin_port), listener, epoll_fd);

	while (served < connections) {
		int n = epoll_wait(epoll_fd, ready, 16, 10000);

		if (n <= 0) {
			fprintf(stderr, "server: %s\n", n ? "epoll_wait failed" : "idle for 10 s");
			return 1;
		}
		for (int i = 0; i < n; i++) {
			int fd = ready[i].data.fd;
			char buf[4096];
			ssize_t len;

			if (fd == listener) {
				int conn = accept(listener, NULL, NULL);

				event.data.fd = conn;
				if (conn < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, conn, &event) < 0)
					die("server: accept");
				printf("accepted %d\n", conn);
				continue;
			}
			/* Level-triggered: a read here does not block, and what
			 * it gets goes straight back (small, so the write does
			 * not block either). */
			len = read(fd, buf, sizeof(buf));
			if (len > 0 && write(fd, buf, (size_t)len) == len)
				continue;
			printf("closed %d\n", fd);
			close(fd); /* also takes it out of the epoll set */
			served++;
		}
	}
	return 0;
}

/* read exactly len bytes from fd into buf */
static int read_all(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t got = read(fd, buf, len);

		if (got <= 0)
			return -1;
		buf += got;
		len -= (size_t)got;
	}
	return 0;
}

static int client(int port, int clients, int messages)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_port = htons((unsigned short)port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int *sock = calloc((size_t)clients, sizeof(*sock)), wrong = 0;

	if (!sock)
		die("client");
	/* All connections open at once: the server multiplexes them. */
	for (int c = 0; c < clients; c++) {
		sock[c] = socket(AF_INET, SOCK_STREAM, 0);
		if (sock[c] < 0 || connect(sock[c], (struct sockaddr *)&addr, sizeof(addr)) < 0)
			die("client: connect");
	}
	for (int m = 0; m < messages; m++) {
		char sent[64], echo[64];
		int len;

		/* Every client sends before any reads its echo. */
		for (int c = 0; c < clients; c++) {
			len = snprintf(sent, sizeof(sent), "client %d message %d\n", c, m);
			if (write(sock[c], sent, (size_t)len) != len)
				die("client: write");
		}
		for (int c = 0; c < clients; c++) {
			len = snprintf(sent, sizeof(sent), "client %d message %d\n", c, m);
			if (read_all(sock[c], echo, (size_t)len) < 0)
				die("client: read");
			if (memcmp(sent, echo, (size_t)len) != 0) {
				printf("wrong echo: sent \"%.*s\", got \"%.*s\"\n",
				       len - 1, sent, len - 1, echo);
				wrong++;
			}
		}
	}
	for (int c = 0; c < clients; c++)
		close(sock[c]);
	free(sock);
	printf("client: %d connections x %d messages, %d echoes wrong\n",
	       clients, messages, wrong);
	return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
	/* Line by line, so that a script can read the port as it comes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && strcmp(argv[1], "server") == 0 && atoi(argv[2]) > 0)
		return server(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "client") == 0 && atoi(argv[2]) > 0 &&
	    atoi(argv[3]) > 0 && atoi(argv[4]) >= 0)
		return client(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: echo_epoll server N | echo_epoll client PORT CLIENTS MESSAGES\n");
	return 2;
}
