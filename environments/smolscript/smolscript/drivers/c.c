// The harness's main is the entry point: a main written in the candidate's code is renamed
// (and never called), so that it cannot clash with or replace the harness's.
#define main smol_candidate_main
// @@SOURCE@@
#undef main

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char smol_buf[65536];

static char *smol_line(void) {
    if (fgets(smol_buf, sizeof smol_buf, stdin) == NULL) {
        smol_buf[0] = '\0';
    }
    size_t n = strlen(smol_buf);
    if (n > 0 && smol_buf[n - 1] == '\n') {
        smol_buf[--n] = '\0';
    }
    char *copy = malloc(n + 1);
    memcpy(copy, smol_buf, n + 1);
    return copy;
}

static int smol_int(void) {
    char *text = smol_line();
    int value = atoi(text);
    free(text);
    return value;
}

static int *smol_ints(int n) {
    int *items = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        items[i] = smol_int();
    }
    return items;
}

static char **smol_strs(int n) {
    char **items = malloc(sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        items[i] = smol_line();
    }
    return items;
}

// A str result (the str type of smolscript/types.py) is printable ASCII, bytes 32..126: NULL
// (which printf would spell "(null)") or any other byte, a control character, a line end or
// part of a look-alike, is a type mismatch, reported on stderr as types.parse_type_mismatch
// reads it, and the run exits with its status.
static const char *smol_checked_str(const char *text) {
    if (text == NULL) {
        fprintf(stderr, "smolscript-harness: result type mismatch: expected str, got NULL\n");
        exit(97);
    }
    for (size_t i = 0; text[i] != '\0'; i++) {
        unsigned char byte = (unsigned char)text[i];
        if (byte < 32 || byte > 126) {
            fprintf(stderr, "smolscript-harness: result type mismatch: expected str, got string "
                    "with byte 0x%02X at index %zu (not printable ASCII)\n", byte, i);
            exit(97);
        }
    }
    return text;
}

static void smol_print_ints(const int *items, int n) {
    for (int i = 0; i < n; i++) {
        printf(i == 0 ? "%d" : " %d", items[i]);
    }
}

// The result frame (smolscript/frames.py): the harness prints the result between these two
// lines, with the job's nonce, only after the entry point has returned; the host reads only
// that block, so nothing the candidate prints stands in for it.
static void smol_begin(const char *nonce) {
    printf("smolscript-result-begin %s\n", nonce);
}

static void smol_end(const char *nonce) {
    printf("\nsmolscript-result-end %s\n", nonce);
    fflush(stdout);
}

int main(void) {
    // The nonce is the first stdin line, kept only in this function.
    char *smol_nonce = smol_line();
    // @@READ_ARGS@@
    // @@CALL_AND_PRINT@@
    return 0;
}
