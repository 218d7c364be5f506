/* test_open_nonblock.c — issue 12: gc_model_read_file (and gc_api_model_open, which the
 * Python binding calls) must never block on a FIFO or other non-regular file: it opens
 * with O_NONBLOCK and refuses what fstat says is not a regular file. The read runs in a
 * child process so that a regression fails the test (after 5 s) instead of hanging it. */
#include "test.h"
#include "api/api.h"
#include "model/model.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 0: refused with "not a regular file"; 1: other answer; 2: hung (killed); 3: no child */
static int read_in_child(const char *path, bool api) {
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
        char err[512] = "";
        gc_model *m = api ? gc_api_model_open(path, err, sizeof err) : gc_model_read_file(path, err, sizeof err);
        if (m) { gc_model_free(m); _exit(1); }
        _exit(strstr(err, "not a regular file") ? 0 : 1);
    }
    for (int i = 0; i < 500; i++) {            /* 5 s */
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 2;
}

GC_TEST(model_read_fifo_does_not_block) {
    char dir[] = "/tmp/gctest-fifo-XXXXXX";
    if (!mkdtemp(dir)) SKIP("mkdtemp failed");
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/model.tflite", dir);
    if (mkfifo(fifo, 0600) != 0) { rmdir(dir); SKIP("mkfifo failed"); }
    CHECK_EQ_INT(read_in_child(fifo, false), 0);   /* the library */
    CHECK_EQ_INT(read_in_child(fifo, true), 0);    /* the facade the Python binding uses */
    CHECK_EQ_INT(read_in_child(dir, false), 0);    /* a directory: the same clear refusal */
    unlink(fifo);
    rmdir(dir);
}

GC_TEST(model_read_char_device_refused) {
    struct stat st;
    if (stat("/dev/null", &st) != 0 || !S_ISCHR(st.st_mode)) SKIP("/dev/null is not a character device here");
    char err[512] = "";
    gc_model *m = gc_model_read_file("/dev/null", err, sizeof err);
    CHECK(m == NULL);
    CHECK_MSG(strstr(err, "not a regular file") != NULL, "%s", err);
    gc_model_free(m);
}
