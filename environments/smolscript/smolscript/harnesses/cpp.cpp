// @@SOURCE@@

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
