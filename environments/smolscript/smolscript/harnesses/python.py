# @@SOURCE@@


def _smol_main():
    import sys as smol_sys

    smol_lines = smol_sys.stdin.read().split("\n")
    smol_pos = [0]

    def smol_line():
        smol_pos[0] += 1
        return smol_lines[smol_pos[0] - 1] if smol_pos[0] <= len(smol_lines) else ""

    def smol_int_text(value):
        # The number policy of int results (README): an integral float in the int32 range
        # prints as that integer (-0.0 as 0); anything else prints as Python spells it.
        if isinstance(value, float) and value.is_integer() and -(2**31) <= value < 2**31:
            return str(int(value))
        return str(value)

    # @@READ_ARGS@@
    # @@CALL_AND_PRINT@@


_smol_main()
