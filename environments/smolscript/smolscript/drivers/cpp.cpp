// The harness's main is the entry point: a main written in the candidate's code is renamed
// (and never called), so that it cannot clash with or replace the harness's.
#define main smol_candidate_main
// @@SOURCE@@
#undef main

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

static std::string smol_line() {
    std::string line;
    if (!std::getline(std::cin, line)) {
        line.clear();
    }
    return line;
}

static int smol_int() {
    return std::stoi(smol_line());
}

// A str result (the str type of smolscript/types.py) is printable ASCII, bytes 32..126: any
// other byte (a NUL, a control character, a line end, part of a look-alike) is a type
// mismatch, reported on stderr as types.parse_type_mismatch reads it, and the run exits with
// its status.
static std::string smol_checked_str(std::string text) {
    for (size_t i = 0; i < text.size(); i++) {
        unsigned char byte = static_cast<unsigned char>(text[i]);
        if (byte < 32 || byte > 126) {
            std::cout.flush();
            std::fprintf(stderr, "smolscript-harness: result type mismatch: expected str, got "
                         "string with byte 0x%02X at index %zu (not printable ASCII)\n", byte, i);
            std::exit(97);
        }
    }
    return text;
}

// The result `text`, framed with the job's nonce (smolscript/frames.py), in one write once the
// entry point has returned: the host reads only this block, so nothing the candidate prints
// stands in for it.
static void smol_emit(const std::string &nonce, const std::string &text) {
    std::cout << ("smolscript-result-begin " + nonce + "\n" + text + "\nsmolscript-result-end " + nonce + "\n") << std::flush;
}

static std::string smol_join(const std::vector<int> &items) {
    std::string text;
    for (size_t i = 0; i < items.size(); i++) {
        text += (i ? " " : "") + std::to_string(items[i]);
    }
    return text;
}

int main() {
    // The nonce is the first stdin line, kept only in this function.
    const std::string smol_nonce = smol_line();
    // @@READ_ARGS@@
    // @@CALL_AND_PRINT@@
    return 0;
}
