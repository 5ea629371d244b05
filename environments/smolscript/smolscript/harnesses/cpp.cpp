// The harness's main is the entry point: a main written in the candidate's code is renamed
// (and never called), so that it cannot clash with or replace the harness's.
#define main smol_candidate_main
// @@SOURCE@@
#undef main

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

int main() {
    // @@READ_ARGS@@
    // @@CALL_AND_PRINT@@
    return 0;
}
