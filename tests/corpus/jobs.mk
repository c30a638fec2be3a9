# GNU make with parallel jobs (-j2): the jobserver is a pipe, and make
# waits for a token with pselect() on its read end (FD_SET). Each job
# sleeps, so that the first is still running when make asks for the
# second token. Run with: make -s -j2 -f jobs.mk (in an empty directory).
all: a b c
	@cat a b c
a b c:
	@sleep 0.2; echo $@ > $@
