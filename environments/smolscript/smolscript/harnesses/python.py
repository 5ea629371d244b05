# @@SOURCE@@


def _smol_main():
    import sys as smol_sys

    smol_lines = smol_sys.stdin.read().split("\n")
    smol_pos = [0]

    def smol_line():
        smol_pos[0] += 1
        return smol_lines[smol_pos[0] - 1] if smol_pos[0] <= len(smol_lines) else ""

    # @@READ_ARGS@@
    # @@CALL_AND_PRINT@@


_smol_main()
