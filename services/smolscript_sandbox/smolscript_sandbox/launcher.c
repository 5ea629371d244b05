/*
 * smolscript sandbox launcher: the privileged first step of every sandboxed process.
 *
 * Usage: launcher [--cgroup FILE]... [--rlimit NAME=SOFT:HARD]... [--uid UID --gid GID] -- ARGV...
 *
 * In this order: as the service's user (root in bwrap+uid mode) write its own pid into each
 * cgroup.procs FILE and open every word of the form @open:/ABSOLUTE/PATH among ARGV's options
 * (the words before ARGV's own `--`, i.e. bwrap's options, never the job's command line)
 * read-only on a free descriptor, replacing the word by the descriptor's number; with --uid
 * (a uid and gid from 1 to 4294967294, both required), clear the
 * supplementary groups and the inheritable and ambient capabilities and switch real,
 * effective and saved gid and uid; then, as that uid, lower each rlimit (NAME: cpu, as, nproc,
 * fsize, nofile, core; SOFT and HARD are decimal numbers); finally exec ARGV (searched on
 * PATH). A malformed, repeated or missing option and any failure exit 125 before ARGV runs.
 *
 * One exec instead of the `sh` + `setpriv` + `prlimit` chain it replaces (same end state:
 * util-linux's `setpriv --reuid --regid --clear-groups --inh-caps=-all` and `prlimit`).
 * Built at service start-up with the host's gcc and no CPU-specific flags (launcher.py).
 *
 * Mark mode: launcher --mark FD -- ARGV (exactly this form), run inside the sandbox as the
 * first program bwrap execs (isolation.bwrap_argv), writes the line MARK_LINE to FD in one
 * write, closes FD and execs ARGV (searched on PATH) with the environment unchanged. The
 * line tells the service that bwrap's whole setup succeeded; the job itself never holds FD,
 * so nothing it does can write the line or take it back. Nothing else is done in this mode
 * (no cgroup, no uid, no rlimit, no @open: word is opened). A malformed command line or a
 * failed write exits 125 before ARGV runs (and without the line); a failed exec exits 125
 * after it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAIL 125
#define MARK_LINE "{\"payload-exec\": true}\n"

static void die(const char *what, const char *arg) {
    fprintf(stderr, "smolscript launcher: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(FAIL);
}

/* A decimal number made of digits only (no sign, no space), ending at `stop` or at the end. */
static unsigned long long number(const char *text, char stop, const char *what) {
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || text[0] < '0' || text[0] > '9' || (*end != '\0' && *end != stop)) {
        errno = EINVAL;
        die(what, text);
    }
    return value;
}

/* A uid or gid to switch to: never 0 (root) and never -1 (setres*id's "unchanged"). */
static unsigned long long id_number(const char *text, const char *what) {
    unsigned long long value = number(text, '\0', what);
    if (value == 0 || value >= 0xffffffffULL) {
        errno = EINVAL;
        die(what, text);
    }
    return value;
}

static int resource(const char *name, size_t len) {
    static const struct { const char *name; int resource; } table[] = {
        {"cpu", RLIMIT_CPU}, {"as", RLIMIT_AS}, {"nproc", RLIMIT_NPROC},
        {"fsize", RLIMIT_FSIZE}, {"nofile", RLIMIT_NOFILE}, {"core", RLIMIT_CORE},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strlen(table[i].name) == len && strncmp(table[i].name, name, len) == 0) {
            return table[i].resource;
        }
    }
    errno = EINVAL;
    die("unknown rlimit", name);
    return -1;
}

static void join_cgroup(const char *procs) {
    FILE *file = fopen(procs, "w");
    if (file == NULL || fprintf(file, "%d\n", (int)getpid()) < 0 || fclose(file) != 0) {
        die("cannot join cgroup", procs);
    }
}

static void set_rlimit(const char *spec) {
    const char *eq = strchr(spec, '=');
    const char *colon = eq ? strchr(eq, ':') : NULL;
    if (eq == NULL || colon == NULL) {
        errno = EINVAL;
        die("bad rlimit", spec);
    }
    struct rlimit limit = {number(eq + 1, ':', "bad rlimit"),
                           number(colon + 1, '\0', "bad rlimit")};
    if (setrlimit(resource(spec, (size_t)(eq - spec)), &limit) != 0) {
        die("cannot set rlimit", spec);
    }
}

static void drop_to(uid_t uid, gid_t gid) {
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    if (setgroups(0, NULL) != 0) die("cannot clear groups", NULL);
    if (setresgid(gid, gid, gid) != 0) die("cannot set gid", NULL);
    if (syscall(SYS_capget, &header, data) != 0) die("capget", NULL);
    data[0].inheritable = data[1].inheritable = 0;
    if (syscall(SYS_capset, &header, data) != 0) die("cannot clear inheritable caps", NULL);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        die("cannot clear ambient caps", NULL);
    }
    if (setresuid(uid, uid, uid) != 0) die("cannot set uid", NULL);
    uid_t r, e, s;
    gid_t rg, eg, sg;
    if (getresuid(&r, &e, &s) != 0 || r != uid || e != uid || s != uid ||
        getresgid(&rg, &eg, &sg) != 0 || rg != gid || eg != gid || sg != gid) {
        errno = EPERM;
        die("uid or gid did not change", NULL);
    }
}

static char *open_marked(const char *word) {
    int fd = open(word + strlen("@open:"), O_RDONLY);
    if (fd < 0) die("cannot open", word);
    char *text = malloc(16);
    if (text == NULL) die("out of memory", NULL);
    snprintf(text, 16, "%d", fd);
    return text;
}

/* Mark mode (see the header): write the line to the descriptor, close it, exec the job. */
static int mark_and_exec(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        errno = EINVAL;
        die("usage: launcher --mark FD -- ARGV", NULL);
    }
    unsigned long long fd = number(argv[2], '\0', "bad mark descriptor");
    size_t len = strlen(MARK_LINE);
    if (fd > 1000000 || write((int)fd, MARK_LINE, len) != (ssize_t)len) {
        die("cannot write the mark to", argv[2]);
    }
    if (close((int)fd) != 0) die("cannot close the mark descriptor", argv[2]);
    execvp(argv[4], argv + 4);
    die("cannot exec", argv[4]);
    return FAIL;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--mark") == 0) return mark_and_exec(argc, argv);
    long long uid = -1, gid = -1;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0) {
            errno = EINVAL;
            die("missing value for", argv[i]);
        }
        if (strcmp(argv[i], "--cgroup") == 0) {
            join_cgroup(argv[i + 1]);
        } else if (strcmp(argv[i], "--rlimit") == 0) {
            continue;  /* set after the uid drop, as setpriv + prlimit did */
        } else if (strcmp(argv[i], "--uid") == 0 && uid < 0) {
            uid = (long long)id_number(argv[i + 1], "bad uid");
        } else if (strcmp(argv[i], "--gid") == 0 && gid < 0) {
            gid = (long long)id_number(argv[i + 1], "bad gid");
        } else {
            errno = EINVAL;
            die("unknown or repeated option", argv[i]);
        }
    }
    if (i + 1 >= argc || (uid < 0) != (gid < 0)) {
        errno = EINVAL;
        die("usage: launcher [--cgroup F] [--rlimit N=S:H] [--uid U --gid G] -- ARGV", NULL);
    }
    char **command = argv + i + 1;
    for (char **word = command + 1; *word != NULL && strcmp(*word, "--") != 0; word++) {
        if (strncmp(*word, "@open:/", strlen("@open:/")) == 0) *word = open_marked(*word);
    }
    if (uid >= 0) drop_to((uid_t)uid, (gid_t)gid);
    for (int j = 1; j < i; j += 2) {
        if (strcmp(argv[j], "--rlimit") == 0) set_rlimit(argv[j + 1]);
    }
    execvp(command[0], command);
    die("cannot exec", command[0]);
    return FAIL;
}
