# @@SOURCE@@


def _smol_main():
    # Builtins through their module, so that a candidate's global of the same name (a variable
    # called `int`, `list` or `type`) changes nothing the harness reads, checks or prints.
    import builtins as smol_b
    import sys as smol_sys

    smol_lines = smol_sys.stdin.read().split("\n")
    smol_pos = [0]

    def smol_line():
        smol_pos[0] += 1
        return smol_lines[smol_pos[0] - 1] if smol_pos[0] <= smol_b.len(smol_lines) else ""

    # The job's nonce (smolscript/frames.py): the first stdin line, kept only in this closure.
    smol_nonce = smol_line()
    smol_lines[0] = ""

    def smol_emit(text):
        # The result, framed with the nonce, in one write once the entry point has returned:
        # the host reads only this block, so nothing the candidate prints stands in for it.
        smol_sys.stdout.write(f"smolscript-result-begin {smol_nonce}\n{text}\nsmolscript-result-end {smol_nonce}\n")
        smol_sys.stdout.flush()

    def smol_integral_float(value):
        # The number policy of int results (README): an integral float in the int32 range
        # counts as that integer (-0.0 as 0).
        return smol_b.type(value) is smol_b.float and value.is_integer() and -(2**31) <= value < 2**31

    def smol_int_text(value):
        # A checked int result: an int, or an integral float printed as its integer.
        return smol_b.int.__repr__(smol_b.int(value) if smol_integral_float(value) else value)

    def smol_not_printable(text):
        # None when every character of the str `text` is printable ASCII (" " to "~", the str
        # type of smolscript/types.py), else the first other one: a control character, a
        # line end or a look-alike never prints as the expected text it resembles.
        if smol_b.str.isascii(text) and smol_b.str.isprintable(text):  # ASCII: 32..126
            return None
        for index, char in smol_b.enumerate(text):
            if not " " <= char <= "~":
                return f"str with U+{smol_b.ord(char):04X} at index {index} (not printable ASCII)"
        return None

    def smol_mismatch(value, typ):
        # None when `value` is a value of type `typ` (the type names of smolscript/types.py),
        # else what it is instead. Exact types: bool is not int, a subclass of int or str is
        # neither (it may print as something else), a tuple, dict or str is not a list; a str
        # holds printable ASCII only.
        kind = smol_b.type(value)
        if typ == "int":
            return None if kind is smol_b.int or smol_integral_float(value) else kind.__name__
        if typ == "bool":
            return None if kind is smol_b.bool else kind.__name__
        if typ == "str":
            return kind.__name__ if kind is not smol_b.str else smol_not_printable(value)
        if typ.startswith("list[") and typ.endswith("]"):
            if kind is not smol_b.list:
                return kind.__name__
            for index, item in smol_b.enumerate(value):
                why = smol_mismatch(item, typ[5:-1])
                if why is not None:
                    return f"list with {why} at index {index}"
            return None
        return f"a value for the unknown type {typ}"

    def smol_checked(value, typ):
        # The result when it has the declared type `typ`; else the mismatch goes to stderr in
        # the format of smolscript.types.parse_type_mismatch and the run exits with its status.
        why = smol_mismatch(value, typ)
        if why is None:
            return value
        smol_sys.stdout.flush()
        smol_sys.stderr.write(f"smolscript-harness: result type mismatch: expected {typ}, got {why}\n")
        smol_sys.stderr.flush()
        raise smol_b.SystemExit(97)

    # @@READ_ARGS@@
    # @@CALL_AND_PRINT@@


_smol_main()
