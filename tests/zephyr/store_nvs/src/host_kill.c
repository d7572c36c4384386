/*
 * Runner side of native_sim (host C library): the image dies here as at a
 * power cut, by SIGKILL, with nothing flushed or unmapped after it. The
 * flash simulator's file is a shared mapping, so what the image wrote to
 * flash is in the file, and nothing else.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

void emcp_test_host_sigkill(void);

void emcp_test_host_sigkill(void)
{
    fflush(stdout); /* the lines already printed are the test's evidence */
    kill(getpid(), SIGKILL);
}
